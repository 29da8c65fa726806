-- AlterTable
ALTER TABLE "crawler_resource" ADD COLUMN     "response" TEXT;

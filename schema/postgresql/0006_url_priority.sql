-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN     "priority" TEXT;

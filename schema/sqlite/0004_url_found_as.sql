-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN "found_as" TEXT;

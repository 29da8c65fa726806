-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN "change_count" INTEGER;
ALTER TABLE "crawler_url" ADD COLUMN "changed_at" DATETIME;

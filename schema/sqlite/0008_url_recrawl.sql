-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN "due_at" DATETIME;
ALTER TABLE "crawler_url" ADD COLUMN "recrawl_every" INTEGER;
ALTER TABLE "crawler_url" ADD COLUMN "unchanged_visits" INTEGER;

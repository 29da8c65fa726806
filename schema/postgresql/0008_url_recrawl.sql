-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN     "due_at" TIMESTAMPTZ(3),
ADD COLUMN     "recrawl_every" INTEGER,
ADD COLUMN     "unchanged_visits" INTEGER;

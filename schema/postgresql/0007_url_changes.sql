-- AlterTable
ALTER TABLE "crawler_url" ADD COLUMN     "change_count" INTEGER,
ADD COLUMN     "changed_at" TIMESTAMPTZ(3);

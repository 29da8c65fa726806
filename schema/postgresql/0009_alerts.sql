-- CreateTable
CREATE TABLE "gf_alert" (
    "id" TEXT NOT NULL,
    "catalog_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_fired_at" TIMESTAMPTZ(3),
    "last_matches" TEXT,

    CONSTRAINT "gf_alert_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "gf_alert_catalog_id_name_key" ON "gf_alert"("catalog_id", "name");

-- CreateTable
CREATE TABLE "gf_alert" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "catalog_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "last_fired_at" DATETIME,
    "last_matches" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "gf_alert_catalog_id_name_key" ON "gf_alert"("catalog_id", "name");

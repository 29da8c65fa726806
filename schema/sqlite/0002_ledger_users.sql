-- CreateTable
CREATE TABLE "crawler_url" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "catalog_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "url_hash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "detail" TEXT NOT NULL,
    "status" INTEGER,
    "reason" TEXT NOT NULL,
    "referrer" TEXT,
    "depth" INTEGER NOT NULL,
    "fetched_at" DATETIME,
    "updated_at" DATETIME NOT NULL,
    "redirects" TEXT NOT NULL DEFAULT '[]'
);

-- CreateTable
CREATE TABLE "gf_user" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "gf_revoked_token" (
    "token_id" TEXT NOT NULL PRIMARY KEY,
    "expires_at" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "crawler_url_catalog_id_version_state_idx" ON "crawler_url"("catalog_id", "version", "state");

-- CreateIndex
CREATE INDEX "crawler_url_catalog_id_version_url_hash_idx" ON "crawler_url"("catalog_id", "version", "url_hash");

-- CreateIndex
CREATE INDEX "gf_revoked_token_expires_at_idx" ON "gf_revoked_token"("expires_at");

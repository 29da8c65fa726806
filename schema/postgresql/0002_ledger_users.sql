-- CreateTable
CREATE TABLE "crawler_url" (
    "id" CHAR(36) NOT NULL,
    "catalog_id" CHAR(36) NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "url_hash" CHAR(64) NOT NULL,
    "state" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "detail" TEXT NOT NULL,
    "status" INTEGER,
    "reason" TEXT NOT NULL,
    "referrer" TEXT,
    "depth" INTEGER NOT NULL,
    "fetched_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "redirects" TEXT NOT NULL DEFAULT '[]',

    CONSTRAINT "crawler_url_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "gf_user" (
    "name" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "gf_user_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "gf_revoked_token" (
    "token_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "gf_revoked_token_pkey" PRIMARY KEY ("token_id")
);

-- CreateIndex
CREATE INDEX "crawler_url_catalog_id_version_state_idx" ON "crawler_url"("catalog_id", "version", "state");

-- CreateIndex
CREATE INDEX "crawler_url_catalog_id_version_url_hash_idx" ON "crawler_url"("catalog_id", "version", "url_hash");

-- CreateIndex
CREATE INDEX "gf_revoked_token_expires_at_idx" ON "gf_revoked_token"("expires_at");

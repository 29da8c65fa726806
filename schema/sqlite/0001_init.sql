-- CreateTable
CREATE TABLE "crawler_catalog" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "start_url" TEXT NOT NULL,
    "settings" TEXT NOT NULL,
    "index_version" INTEGER NOT NULL DEFAULT 0,
    "search_version" INTEGER NOT NULL DEFAULT -1,
    "running_state" TEXT NOT NULL DEFAULT 'none',
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "crawler_resource" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "catalog_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "url_hash" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "charset" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "depth" INTEGER NOT NULL,
    "content_hash" TEXT NOT NULL,
    "etag" TEXT,
    "last_modified" TEXT,
    "html_path" TEXT NOT NULL,
    "text_path" TEXT NOT NULL,
    "html_bytes" INTEGER NOT NULL,
    "text_chars" INTEGER NOT NULL,
    "link_density" REAL NOT NULL,
    "fetched_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "crawler_image" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "catalog_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "created_at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "crawler_resource_image" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "catalog_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "resource_id" TEXT NOT NULL,
    "image_id" TEXT NOT NULL,
    "alt" TEXT NOT NULL,
    "surrounding_text" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "crawler_report" (
    "catalog_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL,
    "report" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,

    PRIMARY KEY ("catalog_id", "version")
);

-- CreateIndex
CREATE UNIQUE INDEX "crawler_catalog_name_key" ON "crawler_catalog"("name");

-- CreateIndex
CREATE INDEX "crawler_catalog_url_idx" ON "crawler_catalog"("url");

-- CreateIndex
CREATE INDEX "crawler_resource_catalog_id_version_idx" ON "crawler_resource"("catalog_id", "version");

-- CreateIndex
CREATE UNIQUE INDEX "crawler_resource_catalog_id_version_url_hash_key" ON "crawler_resource"("catalog_id", "version", "url_hash");

-- CreateIndex
CREATE INDEX "crawler_image_catalog_id_version_idx" ON "crawler_image"("catalog_id", "version");

-- CreateIndex
CREATE INDEX "crawler_resource_image_catalog_id_version_idx" ON "crawler_resource_image"("catalog_id", "version");

-- CreateIndex
CREATE INDEX "crawler_resource_image_resource_id_idx" ON "crawler_resource_image"("resource_id");

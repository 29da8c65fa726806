-- CreateTable
CREATE TABLE "crawler_catalog" (
    "id" CHAR(36) NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "start_url" TEXT NOT NULL,
    "settings" TEXT NOT NULL,
    "index_version" INTEGER NOT NULL DEFAULT 0,
    "search_version" INTEGER NOT NULL DEFAULT -1,
    "running_state" TEXT NOT NULL DEFAULT 'none',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "crawler_catalog_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawler_resource" (
    "id" CHAR(36) NOT NULL,
    "catalog_id" CHAR(36) NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "url_hash" CHAR(64) NOT NULL,
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
    "link_density" DOUBLE PRECISION NOT NULL,
    "fetched_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "crawler_resource_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawler_image" (
    "id" CHAR(36) NOT NULL,
    "catalog_id" CHAR(36) NOT NULL,
    "version" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "crawler_image_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawler_resource_image" (
    "id" CHAR(36) NOT NULL,
    "catalog_id" CHAR(36) NOT NULL,
    "version" INTEGER NOT NULL,
    "resource_id" CHAR(36) NOT NULL,
    "image_id" CHAR(36) NOT NULL,
    "alt" TEXT NOT NULL,
    "surrounding_text" TEXT NOT NULL,

    CONSTRAINT "crawler_resource_image_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crawler_report" (
    "catalog_id" CHAR(36) NOT NULL,
    "version" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL,
    "report" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "crawler_report_pkey" PRIMARY KEY ("catalog_id","version")
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

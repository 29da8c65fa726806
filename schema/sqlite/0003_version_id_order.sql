-- CreateIndex
CREATE INDEX "crawler_resource_catalog_id_version_id_idx" ON "crawler_resource"("catalog_id", "version", "id");

-- CreateIndex
CREATE INDEX "crawler_image_catalog_id_version_id_idx" ON "crawler_image"("catalog_id", "version", "id");

#!/usr/bin/env bash
# Runs the contract suites of the external stores against real servers (docs/stores.md).
#
#   scripts/test-external.sh            start Qdrant, MinIO and Elasticsearch with Docker, run the suites, stop them
#   GF_TEST_QDRANT_URL=… GF_TEST_S3_URL=… GF_TEST_ES_URL=… scripts/test-external.sh
#                                       use servers you already run (any of the three); Docker is not needed
#
# Suites: the VectorStore / VectorStoreFamily contracts against Qdrant and Elasticsearch, the BlobStore contract
# against S3 (MinIO), the SearchIndex contract against Elasticsearch — the same files the embedded stores pass.
# A suite whose url is unset is reported skipped by vitest. Every wait is bounded (GF_TEST_EXTERNAL_WAIT_S, default 120).
set -euo pipefail
cd "$(dirname "$0")/.."

WAIT_S="${GF_TEST_EXTERNAL_WAIT_S:-120}"
QDRANT_IMAGE="${GF_TEST_QDRANT_IMAGE:-qdrant/qdrant:latest}"
MINIO_IMAGE="${GF_TEST_MINIO_IMAGE:-minio/minio:latest}"
ES_IMAGE="${GF_TEST_ES_IMAGE:-docker.elastic.co/elasticsearch/elasticsearch:8.19.0}"
started=()

say() { printf 'test-external: %s\n' "$*" >&2; }

cleanup() {
  for name in "${started[@]}"; do docker rm -f "$name" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# A free loopback port (the kernel's choice).
free_port() { node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# Wait until `curl` of $1 answers 2xx, at most WAIT_S seconds.
wait_for() {
  local url="$1" what="$2" deadline=$((SECONDS + WAIT_S))
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "$what did not answer at $url within ${WAIT_S}s"
      return 1
    fi
    sleep 1
  done
  say "$what answers at $url"
}

have_docker() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }

if [[ -z "${GF_TEST_QDRANT_URL:-}" || -z "${GF_TEST_S3_URL:-}" || -z "${GF_TEST_ES_URL:-}" ]]; then
  if have_docker; then
    tag="gf-test-$$"
    if [[ -z "${GF_TEST_QDRANT_URL:-}" ]]; then
      port=$(free_port)
      docker run -d --name "$tag-qdrant" -p "127.0.0.1:$port:6333" "$QDRANT_IMAGE" >/dev/null
      started+=("$tag-qdrant")
      export GF_TEST_QDRANT_URL="http://127.0.0.1:$port"
      wait_for "$GF_TEST_QDRANT_URL/readyz" Qdrant
    fi
    if [[ -z "${GF_TEST_S3_URL:-}" ]]; then
      port=$(free_port)
      docker run -d --name "$tag-minio" -p "127.0.0.1:$port:9000" \
        -e MINIO_ROOT_USER=greenfinger -e MINIO_ROOT_PASSWORD=greenfinger-secret \
        "$MINIO_IMAGE" server /data >/dev/null
      started+=("$tag-minio")
      export GF_TEST_S3_URL="http://127.0.0.1:$port"
      export GF_TEST_S3_ACCESS_KEY_ID=greenfinger GF_TEST_S3_SECRET_ACCESS_KEY=greenfinger-secret
      export GF_TEST_S3_FORCE_PATH_STYLE=true
      wait_for "$GF_TEST_S3_URL/minio/health/ready" MinIO
    fi
    if [[ -z "${GF_TEST_ES_URL:-}" ]]; then
      port=$(free_port)
      docker run -d --name "$tag-es" -p "127.0.0.1:$port:9200" \
        -e discovery.type=single-node -e xpack.security.enabled=false -e ES_JAVA_OPTS="-Xms512m -Xmx512m" \
        "$ES_IMAGE" >/dev/null
      started+=("$tag-es")
      export GF_TEST_ES_URL="http://127.0.0.1:$port"
      wait_for "$GF_TEST_ES_URL/_cluster/health?wait_for_status=yellow&timeout=5s" Elasticsearch
    fi
  elif [[ -z "${GF_TEST_QDRANT_URL:-}${GF_TEST_S3_URL:-}${GF_TEST_ES_URL:-}" ]]; then
    cat >&2 <<'TXT'
test-external: these suites need real servers, and there is no Docker engine here to start them.
Either run this script where `docker info` works (it starts qdrant/qdrant, minio/minio and a single-node
Elasticsearch with security off, and removes them after), or give the servers you run:

  GF_TEST_QDRANT_URL=http://127.0.0.1:6333 \
  GF_TEST_S3_URL=http://127.0.0.1:9000 GF_TEST_S3_BUCKET=greenfinger-test \
    GF_TEST_S3_ACCESS_KEY_ID=… GF_TEST_S3_SECRET_ACCESS_KEY=… GF_TEST_S3_FORCE_PATH_STYLE=true \
  GF_TEST_ES_URL=http://127.0.0.1:9200 \
  scripts/test-external.sh

Any of the three alone runs its suites; the others are reported skipped. No stand-in server is ever used.
TXT
    exit 2
  else
    say "no Docker engine: running only the suites whose url is given (the others are reported skipped)"
  fi
fi

say "GF_TEST_QDRANT_URL=${GF_TEST_QDRANT_URL:-unset} GF_TEST_S3_URL=${GF_TEST_S3_URL:-unset} GF_TEST_ES_URL=${GF_TEST_ES_URL:-unset}"
suites=(
  packages/core/test/contract/vector-store.qdrant.test.ts
  packages/core/test/contract/blob-store.s3.test.ts
)
for f in packages/core/test/contract/search-index.elasticsearch.test.ts \
  packages/core/test/contract/vector-store.elasticsearch.test.ts; do
  if [[ -f "$f" ]]; then suites+=("$f"); fi
done
npx vitest run "${suites[@]}"

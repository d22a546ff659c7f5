# jmxr in a small image: built with cargo in the Rust image, run from Debian slim.
#   docker build -t jmxr:latest .
# The Kubernetes Job that `jmxr k8s-job` prints runs this image (see docs/distributed.md).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked && strip target/release/jmxr

FROM debian:bookworm-slim
# CA certificates for HTTPS plans; tar lets `kubectl cp` copy the results out.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates tar \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 jmxr
COPY --from=build /src/target/release/jmxr /usr/local/bin/jmxr
USER jmxr
WORKDIR /home/jmxr
ENTRYPOINT ["jmxr"]
CMD ["--help"]

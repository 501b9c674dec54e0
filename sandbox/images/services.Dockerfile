# Third-party services of the stack, built from Debian's packages on the same base as the
# service images (so the whole stack builds where no registry but Debian's is reachable):
#   docker build -f sandbox/images/services.Dockerfile --target redis      .
#   docker build -f sandbox/images/services.Dockerfile --target prometheus .
#   docker build -f sandbox/images/services.Dockerfile --target proxy      .
# Versions are pinned by the Debian release: bookworm ships Redis 7.0, Prometheus 2.42 and
# HAProxy 2.6.

FROM debian:bookworm-slim AS redis
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
USER redis
WORKDIR /var/lib/redis
EXPOSE 6379
# A queue and a result store, not a database: no snapshots, so a restarted Redis starts empty
# and the API's retries (503 while it is gone) are what keeps work from being lost.
CMD ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "", "--appendonly", "no"]

FROM debian:bookworm-slim AS prometheus
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/*
USER prometheus
EXPOSE 9090
CMD ["prometheus", "--config.file=/etc/prometheus/prometheus.yml", \
     "--storage.tsdb.path=/var/lib/prometheus/metrics2", "--storage.tsdb.retention.time=2d"]

# One published port in front of the API replicas (see haproxy.cfg).
FROM debian:bookworm-slim AS proxy
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY sandbox/images/haproxy.cfg /etc/haproxy/haproxy.cfg
USER haproxy
EXPOSE 8000
CMD ["haproxy", "-db", "-f", "/etc/haproxy/haproxy.cfg"]

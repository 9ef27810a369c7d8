# A stand-in for the `postgres:16` image compose.yaml names, for the container test: no registry can be reached here,
# so Debian 12's PostgreSQL (15; Debian has no 16) goes into the locally made base, with an entrypoint that does what
# compose.yaml relies on in the official image (postgres-entrypoint.sh).
ARG BASE=node:20-bookworm-slim
FROM ${BASE}
# No cluster of Debian's own: the entrypoint makes one in PGDATA, as the official image does.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main.conf \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/run/postgresql /var/lib/postgresql/data \
 && chown -R postgres:postgres /var/run/postgresql /var/lib/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint.sh"]

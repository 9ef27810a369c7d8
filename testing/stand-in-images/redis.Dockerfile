# A stand-in for the `redis:7` image compose.yaml names, for the container test: no registry can be reached here, so
# Debian's redis-server (7.0) goes into the locally made base. Only what compose.yaml relies on is copied from the
# official image: `redis-server` as the command, accepting connections from the compose network, as a user, in /data.
ARG BASE=node:20-bookworm-slim
FROM ${BASE}
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no", "--bind", "0.0.0.0"]

# cardcore's server image: a wheel built in one stage, installed in a slim runtime stage that
# runs as an unprivileged user. Untested on the build machine (it has no container runtime):
# tests/unit/test_deploy.py checks this file statically.

# The three distributions of the repository, as wheels: the engine, the client with the gRPC stubs
# and the service. The service's wheel build (services/hatch_build.py) takes the web table's
# Pyodide runtime from the npm registry (the tarball package-lock.json pins, every file checked
# against its hash): no Node stage. Pass --build-arg npm_config_registry=URL for a mirror.
FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE CHANGELOG.md ./
COPY cardcore ./cardcore
COPY clients/python ./clients/python
COPY proto ./proto
COPY services ./services
ARG npm_config_registry=https://registry.npmjs.org/
RUN pip install --no-cache-dir build \
    && for dist in . clients/python services; do \
        python -m build --wheel --outdir /wheels "$dist" || exit 1; \
    done

FROM python:3.12-slim
RUN useradd --create-home --uid 10001 cardcore && mkdir -p /var/lib/cardcore \
    && chown cardcore /var/lib/cardcore
COPY --from=build /wheels /wheels
# the wheel files by name: the engine and the client come from this build, never from an index
RUN pip install --no-cache-dir /wheels/cardcore-*.whl /wheels/cardcore_client-*.whl \
        "$(ls /wheels/cardcore_server-*.whl)[postgres]" \
    && rm -rf /wheels
USER cardcore
WORKDIR /var/lib/cardcore
EXPOSE 50051 50052
ENV CARDCORE_HOST=0.0.0.0 CARDCORE_DB=/var/lib/cardcore/cardcore.db
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:50052/readyz').status != 200)"
# The admin key (required beyond loopback) comes from the environment: CARDCORE_ADMIN_KEY.
CMD ["cardcore", "serve"]

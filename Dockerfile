# cardcore's server image: a wheel built in one stage, installed in a slim runtime stage that
# runs as an unprivileged user. Untested on the build machine (it has no container runtime):
# tests/unit/test_deploy.py checks this file statically.

# The web table's Pyodide runtime, from npm as package-lock.json pins it: the wheel build
# (hatch_build.py) copies it into the package and refuses to build without it.
FROM node:22-slim AS web
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts

FROM python:3.12-slim AS build
WORKDIR /src
COPY --from=web /src/node_modules/pyodide ./node_modules/pyodide
COPY pyproject.toml README.md LICENSE CHANGELOG.md hatch_build.py ./
COPY cardcore ./cardcore
COPY services ./services
COPY clients/python ./clients/python
COPY proto ./proto
RUN pip install --no-cache-dir build && python -m build --wheel --outdir /wheels

FROM python:3.12-slim
RUN useradd --create-home --uid 10001 cardcore && mkdir -p /var/lib/cardcore \
    && chown cardcore /var/lib/cardcore
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/cardcore-*.whl)[postgres]" && rm -rf /wheels
USER cardcore
WORKDIR /var/lib/cardcore
EXPOSE 50051 50052
ENV CARDCORE_HOST=0.0.0.0 CARDCORE_DB=/var/lib/cardcore/cardcore.db
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:50052/readyz').status != 200)"
# The admin key (required beyond loopback) comes from the environment: CARDCORE_ADMIN_KEY.
CMD ["cardcore", "serve"]

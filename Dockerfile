# One `trusis serve` process. compose.yaml runs two of these behind nginx, on PostgreSQL and
# Redis (docs/deploy.md); alone, `docker run -p 8000:8000 IMAGE` serves on SQLite in the
# container (kept only as long as the container).
# The engine compiled by mypyc (docs/architecture.md, "Compiled engine"), in a builder stage:
# the slim image has the Python headers but no C compiler, and the served image needs neither.
# TRUSIS_COMPILE=1: a build that cannot compile fails rather than ship the slower pure engine.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE requirements.lock ./
COPY tools/build_backend.py ./tools/
COPY src ./src
RUN TRUSIS_COMPILE=1 pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.lock ./
COPY --from=build /wheels /wheels
# The versions the tests ran with (requirements.lock, made by tools/lock.py), not whatever
# is newest on the day of the build.
RUN pip install -c requirements.lock /wheels/trusis-*.whl \
    && rm -rf /wheels \
    && python -c "import trusis.rules, sys; sys.exit(not trusis.rules.compiled())" \
    && useradd --create-home --uid 10001 trusis

USER trusis
EXPOSE 8000
# 200 when the process is well (its Redis reachable, its leases renewed), 503 when not.
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=2)"]
CMD ["trusis", "serve", "--host", "0.0.0.0", "--port", "8000"]

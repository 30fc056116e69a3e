# One `trusis serve` process. compose.yaml runs two of these behind nginx, on PostgreSQL and
# Redis (docs/deploy.md); alone, `docker run -p 8000:8000 IMAGE` serves on SQLite in the
# container (kept only as long as the container).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md LICENSE requirements.lock ./
COPY src ./src
# The versions the tests ran with (requirements.lock, made by tools/lock.py), not whatever
# is newest on the day of the build.
RUN pip install -c requirements.lock . && useradd --create-home --uid 10001 trusis

USER trusis
EXPOSE 8000
# 200 when the process is well (its Redis reachable, its leases renewed), 503 when not.
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=2)"]
CMD ["trusis", "serve", "--host", "0.0.0.0", "--port", "8000"]

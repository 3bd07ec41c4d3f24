# posviz demo container; also a Hugging Face Docker Space (README front matter: sdk docker, app_port 8501).
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

# Non-root, uid 1000 (what Hugging Face Spaces run as).
RUN useradd --create-home --uid 1000 user
WORKDIR /home/user/app

# The CPU build of torch, the version requirements.txt pins: the default wheel would pull
# gigabytes of CUDA libraries. Then the rest, torch's own dependencies included (as the README).
COPY --chown=user requirements.txt .
RUN pip install --no-deps --index-url https://download.pytorch.org/whl/cpu -c requirements.txt torch \
    && pip install -r requirements.txt

COPY --chown=user app.py serve.py ./
COPY --chown=user pages ./pages
COPY --chown=user posviz ./posviz
COPY --chown=user decks ./decks
COPY --chown=user .streamlit ./.streamlit
COPY --chown=user static ./static

# Streamlit serves its JavaScript uncompressed and leaves that to a proxy; this container has none.
# Its static files are compressed once here (gzip -9 and zstd -19; posviz/static_gzip.py) and
# serve.py answers with them: a first visit to /t5 transfers about 2.3 MB (zstd) instead of 5.7 MB,
# at no CPU cost per visit. zstd is only needed for this step.
RUN apt-get update && apt-get install -y --no-install-recommends zstd \
    && python -m posviz.static_gzip \
    && apt-get purge -y zstd && rm -rf /var/lib/apt/lists/*

USER user
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"

# serve.py is app.py as st.App with the compressed static files (app.py alone runs the same app).
CMD ["python", "-m", "streamlit", "run", "serve.py", "--server.port=8501", "--server.address=0.0.0.0"]

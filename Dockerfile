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

COPY --chown=user app.py ./
COPY --chown=user pages ./pages
COPY --chown=user posviz ./posviz
COPY --chown=user decks ./decks
COPY --chown=user .streamlit ./.streamlit

USER user
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"

CMD ["python", "-m", "streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]

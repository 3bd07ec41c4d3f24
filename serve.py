"""The container's entry point: app.py as ``st.App``, with its static files compressed (posviz.static_gzip).

streamlit run serve.py --server.port=8501      # what the Dockerfile runs; app.py alone works too
"""

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from posviz.static_gzip import StaticGzip
from posviz.ui.streamlit_private import no_legacy_pages

no_legacy_pages()  # before any session: every run goes through app.py, none bounces (posviz.ui.streamlit_private)
app = st.App(Path(__file__).with_name("app.py"), middleware=[Middleware(StaticGzip)])

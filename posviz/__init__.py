"""posviz: see how transformers encode position.

Layers (imports run one way only):
    posviz.encodings  pure torch math, one module per scheme
    posviz.figures    plotly figures built from tensors
    posviz.ui         streamlit controls, page chrome and exports
"""

__version__ = "0.1.0"

"""Pure PyTorch position encodings: no plotly, no streamlit.

Notation used in every module:
    i, j    query and key positions
    r       j - i, key minus query (negative: the key is in the past)
    h       heads
    q_pos   (q_len,) int64 query positions; k_pos (k_len,) int64 key positions
"""

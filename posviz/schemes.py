"""The registry: one entry per position scheme and one per page.

Everything that lists the schemes derives from here: ``app.py``'s navigation,
the home page's map, the compare page, the benchmark and the tests' page lists.
Adding a scheme is one folder per layer (``encodings/<key>.py``,
``figures/<key>.py``, ``ui/<key>/``, ``pages/<key>.py``) and one entry below.

Plain data: no streamlit, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scheme:
    """A position scheme.

    Attributes:
        key: its name in every layer and its URL path (``t5`` -> ``encodings/t5.py``,
            ``ui/t5/``, ``pages/t5.py``, ``/t5``).
        title: the page and browser-tab title.
        short: the name in legends and tables.
        paper: where it comes from.
        kind: absolute / relative / contextual, fixed or learned.
        how: one line on what it does, for the home page's map.
        icon: a Material Symbols name for the sidebar (Streamlit ships the font; nothing is fetched).
        colour: its colour on the compare page; None when it is not compared there.
        shared_keys: the URL keys it shares with other pages (each means the same everywhere).
        page: whether it has a page of its own.
    """

    key: str
    title: str
    short: str
    paper: str
    kind: str
    how: str
    icon: str = "circle"
    colour: str | None = None
    shared_keys: tuple[str, ...] = ()
    page: bool = True


@dataclass(frozen=True)
class Page:
    """A page in the navigation: a scheme's page or one of the pages about all of them."""

    key: str  # URL path ("" for home) and the file pages/<file>.py
    title: str
    icon: str
    file: str

    @property
    def path(self) -> str:
        return f"pages/{self.file}.py"


# In the order the papers appeared: the teaching order of the home page and the compare page.
# Each entry: key, title, short, paper, kind, how (the fields in order), then what differs from the defaults.
SCHEMES: tuple[Scheme, ...] = (
    Scheme("none", "No position", "none", "—", "—", "nothing: attention sees a set",
           colour="#7f7f7f", page=False),
    Scheme("sinusoidal", "Sinusoidal positions", "sinusoidal", "Vaswani et al. 2017", "absolute, fixed",
           "sin/cos of the position added to each token",
           icon="waves", colour="#1f77b4", shared_keys=("seq_len", "dim", "base", "layout", "seed")),
    Scheme("learned", "Learned absolute positions", "learned absolute", "BERT, GPT", "absolute, learned",
           "a learned vector per position added to each token",
           colour="#aec7e8", page=False),
    Scheme("shaw", "Shaw relative positions", "Shaw", "Shaw et al. 2018", "relative, learned",
           "a learned vector per clipped distance, in q·k",
           icon="table_rows", colour="#2ca02c", shared_keys=("q_len", "k_len", "align", "dim", "seed")),
    Scheme("skew", "Music Transformer skew", "skew", "Huang et al. 2018", "relative, learned",
           "Shaw's term in O(L d) memory",
           icon="swap_horiz", shared_keys=("seq_len", "dim", "seed", "step")),
    Scheme("transformer_xl", "Transformer-XL relative attention", "Transformer-XL", "Dai et al. 2019",
           "relative, learned", "content and distance terms, with global biases u and v, over a memory",
           icon="history", shared_keys=("seq_len", "mem_len", "dim", "seed")),
    Scheme("t5", "T5 relative bias", "T5", "Raffel et al. 2020", "relative, learned",
           "a learned scalar per head and distance bucket",
           icon="grid_on", colour="#ff7f0e", shared_keys=("q_len", "k_len", "align", "heads", "head", "seed", "step")),
    Scheme("rope", "RoPE", "RoPE", "Su et al. 2021", "relative, fixed",
           "rotates q and k by angles proportional to position",
           icon="rotate_right", colour="#9467bd", shared_keys=("seq_len", "dim", "base", "layout", "seed")),
    Scheme("alibi", "ALiBi linear biases", "ALiBi", "Press et al. 2022", "relative, fixed",
           "a linear penalty −m·(i − j) per head on the logits",
           icon="trending_down", colour="#d62728", shared_keys=("seq_len", "heads", "causal")),
    Scheme("kerple", "KERPLE kernelized biases", "KERPLE", "Chi et al. 2022", "relative, learned",
           "a learned kernel of the distance per head, on the logits",
           icon="show_chart", shared_keys=("heads", "seq_len", "seed")),
    Scheme("xpos", "xPos", "xPos", "Sun et al. 2022", "relative, fixed",
           "RoPE times a per-pair decay with distance",
           icon="blur_linear", shared_keys=("dim", "seq_len", "seed")),
    Scheme("nope", "NoPE and DroPE", "NoPE", "Kazemnejad et al. 2023", "none: the causal mask only",
           "no position term: the mask lets a model count its predecessors",
           icon="block", shared_keys=("seq_len", "dim", "base", "seed")),
    Scheme("fire", "FIRE functional interpolation", "FIRE", "Li et al. 2023", "relative, learned",
           "an MLP of the distance divided by the query's own context",
           icon="functions", shared_keys=("heads", "seq_len", "seed")),
    Scheme("stickbreaking", "Stick-breaking attention", "stick-breaking", "Tan et al. 2024", "contextual, none",
           "each key breaks off a share of what the nearer keys left",
           icon="straighten", shared_keys=("seq_len", "dim", "seed")),
    Scheme("cope", "CoPE contextual positions", "CoPE", "Golovneva et al. 2024", "contextual, learned",
           "positions that count gated tokens, not all tokens",
           icon="format_list_numbered", colour="#8c564b", shared_keys=("dim", "seed")),
)  # fmt: skip

BY_KEY: dict[str, Scheme] = {s.key: s for s in SCHEMES}
COMPARED: tuple[Scheme, ...] = tuple(s for s in SCHEMES if s.colour is not None)

HOME = Page("", "Why position?", "home", "home")
COMPARE = Page("compare", "Compare every scheme", "compare", "compare")
MODELS = Page("models", "Real models", "model_training", "models")
VISION = Page("vision", "Images and video", "image", "vision")
PAGES: tuple[Page, ...] = (
    HOME,
    *(Page(s.key, s.title, s.icon, s.key) for s in SCHEMES if s.page),
    COMPARE,
    MODELS,
    VISION,
)


def page_of(key: str) -> Page:
    """The page at URL path ``key`` ("" for home)."""
    for page in PAGES:
        if page.key == key:
            return page
    raise KeyError(f"no page at /{key}")

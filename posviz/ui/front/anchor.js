// Links open at their #anchor, a deck's slide at its section, and walk-throughs page by step
// (posviz.ui.sections.anchors); the page's language attribute follows the link's lang (screen readers
// read Chinese as Chinese), and a link in the text to another page keeps it. Static, no user text. Streamlit DOM hooks: HOOKS.md.
(() => {
  if (window.__posvizAnchors) return;
  window.__posvizAnchors = true;
  let holdUntil = 0;
  // Streamlit rewrites the address (the link's corrected values) and drops its #anchor before this runs:
  // the address the page was opened with is kept in its navigation entry.
  const opened = new URL(performance.getEntriesByType('navigation')[0]?.name || location.href);
  let wanted = location.hash.slice(1) || (opened.pathname === location.pathname ? opened.hash.slice(1) : '');
  const target = () => wanted && document.getElementById(decodeURIComponent(wanted));
  const place = () => {
    const el = target();
    if (el && Date.now() < holdUntil) el.scrollIntoView({block: 'start'});
  };
  const hold = () => { if (wanted) { holdUntil = Date.now() + 20000; place(); } };
  let slide = '';
  const deckSlide = () => {  // a deck's slide newly drawn, with an anchor: go there
    const link = document.querySelector('[class*="st-key-deck_anchor_"] a[href^="#"]');
    const box = link && link.closest('[class*="st-key-deck_anchor_"]');
    const seen = box ? box.className.match(/st-key-deck_anchor_\d+/)[0] + link.getAttribute('href') : '';
    if (seen === slide) return;
    slide = seen;
    if (link) { wanted = link.getAttribute('href').slice(1); hold(); }
  };
  // Heights that change without a mutation (an expander opening, a figure drawn) resize the main column:
  // observed, not polled.
  const sized = new ResizeObserver(place);
  sized.observe(document.body);
  let column = null;
  const watchColumn = () => {
    const now = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (now && now !== column) { column = now; sized.observe(now); }
  };
  // The link's language (posviz.ui.language puts it there: lang=zh), two letters or none (English).
  const linkLang = () => {
    const lang = new URLSearchParams(location.search).get('lang') || '';
    return /^[a-z]{2}$/.test(lang) && lang !== 'en' ? lang : '';
  };
  const language = () => {
    const lang = {'': 'en', zh: 'zh-CN'}[linkLang()] || linkLang();
    if (document.documentElement.lang !== lang) document.documentElement.lang = lang;
  };
  watchColumn();
  deckSlide(); // the page may have finished drawing before this script arrived
  language();
  new MutationObserver(() => { watchColumn(); deckSlide(); place(); language(); })
    .observe(document.body, {childList: true, subtree: true});
  for (const kind of ['wheel', 'touchstart', 'keydown', 'mousedown']) {
    window.addEventListener(kind, () => { holdUntil = 0; }, {capture: true, passive: true});
  }
  window.addEventListener('hashchange', () => { wanted = location.hash.slice(1); hold(); });
  hold();
  // A link in the text to another page keeps the language: the address it opens names it (lang=zh).
  document.addEventListener('click', event => {
    const a = event.target.closest('[data-testid="stMarkdownContainer"] a[href]');
    const lang = linkLang();
    if (!a || !lang || !/^(\/|\.\/|\?)/.test(a.getAttribute('href'))) return;
    const url = new URL(a.getAttribute('href'), location.href);
    if (url.origin !== location.origin || url.searchParams.has('lang')) return;
    url.searchParams.set('lang', lang);
    a.setAttribute('href', url.pathname + url.search + url.hash);
  }, true);
  document.addEventListener('click', event => {
    const button = event.target.closest('[class*="st-key-step_prev"] button, [class*="st-key-step_next"] button');
    const row = button && button.closest('[data-testid="stHorizontalBlock"]');
    if (!row) return;
    const header = document.querySelector('[data-testid="stHeader"]');
    row.style.scrollMarginTop = `${(header ? header.getBoundingClientRect().bottom : 0) + 8}px`;  // below the header
    setTimeout(() => row.scrollIntoView({block: 'start'}), 0);
  }, true);
})();

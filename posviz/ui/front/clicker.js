// posviz lecture decks in the app: the clicker's keys, and each slide opened at its figure.
// Loaded once per window (posviz.ui.deck.present, in the sidebar). Streamlit DOM hooks it relies on:
// .st-key-{key} (a keyed element's class), [data-testid="stApp"][data-test-script-state],
// [data-testid="stHeader"], [data-testid="stMain"], [data-testid="stMainBlockContainer"], an element's
// data-stale="true" while a run replaces it, and
// posviz.ui.sections' hold on a heading, which a wheel event releases.
(() => {
  if (window.__posvizClicker) return;
  window.__posvizClicker = true;

  // Keys: presses are counted, never dropped. One is taken (its button clicked) when the app is idle
  // and the button is drawn; the next waits until that move has shown its slide.
  const FORWARD = new Set(['PageDown', 'ArrowRight', ' ', 'Spacebar']);
  const BACK = new Set(['PageUp', 'ArrowLeft']);
  const MOVE_MS = 15000; // a click whose slide has not come by then is taken as lost: click again
  let pending = 0; // + forward, - back
  let sent = null; // {slide, at}: the last click, until its slide is drawn
  const params = () => new URLSearchParams(location.search);
  const inDeck = () => params().has('deck');
  const idle = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.getAttribute('data-test-script-state') === 'notRunning';
  };
  const typing = t => !!t && t.nodeType === 1 && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)
    || t.getAttribute('role') === 'slider');
  const flush = () => {
    if (!pending || !inDeck() || !idle()) return;
    if (sent && params().get('slide') === sent.slide && Date.now() - sent.at < MOVE_MS) return;
    const button = document.querySelector(`.st-key-${pending > 0 ? 'deck_next' : 'deck_prev'} button`);
    if (!button) return; // not drawn yet
    if (button.disabled) { pending = 0; return; } // the first or last slide: nowhere to go
    pending -= Math.sign(pending);
    sent = {slide: params().get('slide'), at: Date.now()};
    button.click();
  };
  window.__posvizClickerQueue = () => ({pending, sent}); // what the queue holds (read by the tests)
  document.addEventListener('keydown', event => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || !inDeck()) return;
    const way = FORWARD.has(event.key) ? 1 : BACK.has(event.key) ? -1 : 0;
    if (!way) return;
    event.preventDefault(); // the page does not scroll: the slide moves
    pending = Math.sign(pending) === -way ? 0 : pending + way; // a press the other way cancels the queue
    flush();
  }, true);

  // Open each slide at its figure: the first figure, or the first after the section its anchor names,
  // scrolled to just under Streamlit's header.
  let placed = ''; // "deck|slide" already placed
  const header = () => document.querySelector('[data-testid="stHeader"]')?.getBoundingClientRect().bottom || 0;
  const figureOf = heading => {
    const figures = [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-fig_"]')]
      .filter(f => f.getAttribute('data-stale') !== 'true'); // not the last run's, about to go
    if (!heading) return figures[0];
    return figures.find(f => heading.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING);
  };
  // A figure taller than the room is scaled down whole (a CSS transform: Plotly maps the pointer through
  // it, so hover, zoom and box select stay exact), centred, and its box shortened to match.
  const fit = (figure, room) => {
    const inner = figure.firstElementChild;
    if (!inner) return;
    inner.style.transform = '';
    figure.style.height = '';
    const {height, width} = figure.getBoundingClientRect();
    if (height <= room) return;
    const scale = Math.floor((room / height) * 1000) / 1000;
    inner.style.transformOrigin = 'top left';
    inner.style.transform = `translateX(${((1 - scale) * width) / 2}px) scale(${scale})`;
    figure.style.height = `${Math.floor(height * scale)}px`;
  };
  // With an anchor the section's heading goes to the top (posviz.ui.sections holds it there) when the
  // figure under it still shows at half its size or more; otherwise the figure itself goes to the top.
  const MIN_SCALE = 0.5;
  const HOLD_MS = 10000; // late layout (a figure or notice drawn above) is followed this long
  let hold = null; // {figure, heading, until}
  const arrange = () => {
    if (!hold || Date.now() > hold.until || !hold.figure.isConnected) { hold = null; return; }
    const {figure} = hold;
    const main = document.querySelector('[data-testid="stMain"]');
    const top = header() + 2;
    const room = window.innerHeight - top - 4;
    let heading = hold.heading;
    if (heading) {
      figure.firstElementChild && (figure.firstElementChild.style.transform = '', figure.style.height = '');
      const lead = figure.getBoundingClientRect().top - heading.getBoundingClientRect().top;
      if ((room - lead) / figure.getBoundingClientRect().height < MIN_SCALE) {
        heading = null;
        hold.heading = null;
        window.dispatchEvent(new Event('wheel')); // posviz.ui.sections lets go of the heading
      }
    }
    const lead = heading ? figure.getBoundingClientRect().top - heading.getBoundingClientRect().top : 0;
    fit(figure, room - lead);
    const target = heading || figure;
    main.scrollBy({top: target.getBoundingClientRect().top - top, behavior: 'instant'});
  };
  const place = () => {
    if (!inDeck() || !idle() || params().get('view') === 'notes') return;
    const where = `${params().get('deck')}|${params().get('slide')}`;
    const marked = document.querySelector('[data-posviz-slide-figure]');
    if (where === placed && marked && marked.isConnected) return;
    if (where === placed && !document.querySelector('[data-testid="stMain"] [class*="st-key-fig_"]')) return;
    const slide = params().get('slide');
    // The run that drew this slide has ended: its bar says so (the address changes before the run starts).
    const bars = [...document.querySelectorAll('[data-testid="stProgress"]')];
    // "Slide 4 of 19", "第 4 / 19 张": the slide's number before "of" or "/" (in any language the bar speaks).
    if (!/^\d+$/.test(slide || '')) return; // a number, before it goes into a pattern
    const drawn = new RegExp(`(^|\\D)${slide}\\s*(of|/)\\s*\\d`);
    if (!bars.some(b => drawn.test(b.textContent))) return;
    const link = document.querySelector(`.st-key-deck_anchor_${CSS.escape(slide)} a[href^="#"]`);
    const anchor = link ? decodeURIComponent(link.getAttribute('href').slice(1)) : '';
    const heading = anchor && document.getElementById(anchor);
    const figure = figureOf(heading);
    if (!figure || !figure.querySelector('.main-svg')) return; // drawn on a later mutation
    placed = where;
    document.querySelectorAll('[data-posviz-slide-figure]').forEach(e => e.removeAttribute('data-posviz-slide-figure'));
    figure.setAttribute('data-posviz-slide-figure', slide); // the slide's figure (the tests read it)
    hold = {figure, heading: heading || null, until: Date.now() + HOLD_MS};
    arrange();
  };
  for (const kind of ['wheel', 'touchstart', 'mousedown']) {
    window.addEventListener(kind, event => { if (event.isTrusted) hold = null; }, {capture: true, passive: true});
  }
  new ResizeObserver(() => { if (hold) arrange(); }).observe(document.body);
  const watchBlock = () => {
    const block = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (block && !block.__posvizWatched) {
      block.__posvizWatched = true;
      new ResizeObserver(() => { if (hold) arrange(); }).observe(block);
    }
  };
  // Everything place() reads: elements drawn and gone, the run's state, an element's staleness, the bar's
  // text. And once now: this script may arrive after the page's last change (a first visit on a busy machine).
  const update = () => { flush(); watchBlock(); place(); };
  new MutationObserver(update).observe(document.documentElement, {
    childList: true, subtree: true, characterData: true,
    attributes: true, attributeFilter: ['data-test-script-state', 'data-stale'],
  });
  update();
})();

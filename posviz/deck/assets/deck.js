// posviz: an exported lecture deck (posviz.deck.export). Reads the slides from #deck-data and draws them
// with the inlined Plotly bundle. No network: everything is in this file.
// Keys: PageDown, →, ↓, Space next; PageUp, ←, ↑, Shift+Space back; Home, End; B or . blanks the screen;
// P opens the presenter window (this slide's notes, the next slide), which follows and can lead.
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('deck-data').textContent);
  // The file's own words, in the deck's language (posviz.deck.export.ui_texts); {name} fields filled here.
  const say = (key, fields) => (data.text[key] || '').replace(/\{(\w+)\}/g, (m, name) => String((fields || {})[name] ?? m));
  const slides = data.slides;
  const last = slides.length;
  const presenter = location.hash.startsWith('#presenter');
  const root = document.getElementById('deck');
  const blank = document.getElementById('blank');
  const PRINT = {width: 1000, height: 470}; // CSS px of a figure on an A4 landscape page
  let current = 1;
  let other = null; // the window this one talks to: the presenter window, or the window that opened it
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const clamp = n => Math.min(Math.max(n, 1), last);

  // One figure: the spec as the app draws it, sized to its box (or to a printed page).
  const draw = (box, slide, size) => {
    if (!slide.figure || !window.Plotly) return;
    const spec = slide.figure;
    const layout = Object.assign({}, spec.layout || {});
    if (size) Object.assign(layout, {autosize: false, width: size.width, height: size.height});
    else Object.assign(layout, {autosize: true, width: undefined, height: Math.max(240, box.clientHeight)});
    const config = {responsive: !size, displaylogo: false, displayModeBar: !size};
    window.Plotly.react(box, {data: spec.data || [], layout, config, frames: spec.frames || []});
    box.dataset.drawn = size ? 'print' : 'screen';
  };

  // The next slide in the presenter window: drawn at a projector's size, then scaled to its column.
  const PREVIEW = {width: 1200, height: 600};
  const preview = (box, slide) => {
    box.textContent = '';
    const inner = el('div');
    box.append(inner);
    draw(inner, slide, PREVIEW);
    const scale = box.clientWidth / PREVIEW.width;
    inner.style.transformOrigin = 'top left';
    inner.style.transform = `scale(${scale})`;
    box.style.height = `${Math.ceil(PREVIEW.height * scale)}px`;
  };

  const figureBox = slide => {
    const box = el('div', slide.figure ? 'figure' : 'figure no-figure', slide.figure ? undefined : say('noFigureSlide'));
    box.setAttribute('role', 'img');
    box.setAttribute('aria-label', slide.alt || slide.title);
    return box;
  };

  // --- The slides (the projected window) -------------------------------------------------------------
  const progress = el('div', 'progress');
  const views = slides.map((slide, i) => {
    const view = el('section', 'slide');
    view.setAttribute('aria-label', `Slide ${i + 1} of ${last}`);
    const head = el('div', 'slide-head');
    head.append(el('h1', '', slide.title), el('span', 'slide-count', `${i + 1} / ${last}`));
    const notes = el('div', 'notes');
    notes.innerHTML = slide.notes; // made safe by posviz.deck.export.notes_html (escaped, then a few tags)
    const box = figureBox(slide);
    view.append(el('div', 'deck-title', data.title), head, box, notes);
    return {view, box, slide};
  });

  const show = n => {
    current = clamp(n);
    if (presenter) return showPresenter();
    views.forEach((v, i) => v.view.classList.toggle('current', i === current - 1));
    progress.style.width = `${(100 * current) / last}%`;
    const v = views[current - 1];
    if (v.box.dataset.drawn !== 'screen') draw(v.box, v.slide);
    if (location.hash !== `#${current}`) history.replaceState(null, '', `#${current}`);
    document.title = `${current}/${last} · ${data.title}`;
  };

  // --- The presenter window ----------------------------------------------------------------------------
  let presenterParts = null;
  const started = Date.now();
  const showPresenter = () => {
    if (!presenterParts) {
      document.body.classList.add('presenter');
      const view = el('div', 'presenter-view');
      const left = el('div', 'now');
      const meta = el('div', 'meta');
      const title = el('h1');
      const notes = el('div', 'notes');
      const controls = el('div', 'controls');
      const back = el('button', '', say('previous'));
      const next = el('button', '', say('next'));
      back.addEventListener('click', () => move(current - 1));
      next.addEventListener('click', () => move(current + 1));
      controls.append(back, next);
      left.append(meta, title, controls, notes);
      const right = el('div', 'next');
      const nextTitle = el('h2');
      const nextBox = el('div', 'figure');
      right.append(nextTitle, nextBox);
      view.append(left, right);
      root.append(view);
      presenterParts = {meta, title, notes, nextTitle, nextBox};
      setInterval(() => { presenterParts.meta.dataset.time = time(); paintMeta(); }, 1000);
    }
    const p = presenterParts;
    const slide = slides[current - 1];
    p.title.textContent = slide.title;
    if (slide.notes) p.notes.innerHTML = slide.notes; // escaped at export
    else { p.notes.textContent = ''; p.notes.append(el('p', '', say('noNotes'))); }
    paintMeta();
    if (current < last) {
      const next = slides[current];
      p.nextTitle.textContent = say('nextTitle', {title: next.title});
      p.nextBox.hidden = false;
      if (next.figure) preview(p.nextBox, next);
      else p.nextBox.textContent = say('noFigure');
    } else {
      p.nextTitle.textContent = say('lastSlide');
      p.nextBox.hidden = true;
    }
  };
  const time = () => {
    const s = Math.floor((Date.now() - started) / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  };
  const paintMeta = () => {
    presenterParts.meta.textContent = say('meta', {title: data.title, slide: current, last, time: time()});
  };

  // --- Moving, and the two windows following each other -----------------------------------------------
  const TAG = 'posviz-deck';
  const send = message => {
    if (other && !other.closed) other.postMessage(Object.assign({tag: TAG}, message), '*');
  };
  const move = n => {
    show(n);
    send({slide: current});
  };
  const setBlank = on => { blank.hidden = !on; };
  window.addEventListener('message', event => {
    const m = event.data;
    if (!m || m.tag !== TAG || (event.source !== other && !(presenter && event.source === window.opener))) return;
    if (Number.isInteger(m.slide)) show(m.slide);
    if (typeof m.blank === 'boolean') setBlank(m.blank);
    if (m.hello && !presenter) send({slide: current});
  });
  const openPresenter = () => {
    other = window.open(`${location.href.split('#')[0]}#presenter`, 'posviz-presenter');
  };

  document.addEventListener('keydown', event => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const k = event.key;
    let handled = true;
    if (k === 'PageDown' || k === 'ArrowRight' || k === 'ArrowDown' || (k === ' ' && !event.shiftKey)) move(current + 1);
    else if (k === 'PageUp' || k === 'ArrowLeft' || k === 'ArrowUp' || (k === ' ' && event.shiftKey)) move(current - 1);
    else if (k === 'Home') move(1);
    else if (k === 'End') move(last);
    else if (k === 'b' || k === 'B' || k === '.') { setBlank(blank.hidden); send({blank: !blank.hidden}); }
    else if ((k === 'p' || k === 'P') && !presenter) openPresenter();
    else handled = false;
    if (handled) event.preventDefault();
  });

  // --- Print: every slide on its own page, each figure at the page's size -----------------------------
  const printAll = () => {
    if (presenter) return;
    views.forEach(v => draw(v.box, v.slide, PRINT));
    document.documentElement.dataset.print = 'ready';
  };
  const screenAgain = () => {
    delete document.documentElement.dataset.print;
    views.forEach(v => { if (v.box.dataset.drawn) v.box.dataset.drawn = 'stale'; });
    show(current);
  };
  window.addEventListener('beforeprint', printAll);
  window.addEventListener('afterprint', screenAgain);
  const printQuery = window.matchMedia('print');
  printQuery.addEventListener('change', e => (e.matches ? printAll() : screenAgain()));

  window.addEventListener('resize', () => {
    if (presenter) return presenterParts && showPresenter();
    const box = views[current - 1].box;
    if (box.dataset.drawn === 'screen' && window.Plotly) window.Plotly.Plots.resize(box);
  });

  if (presenter) {
    other = window.opener;
    send({hello: true});
  } else {
    document.body.append(progress);
    views.forEach(v => root.append(v.view));
    const hint = el('div', 'hint');
    const button = el('button', '', say('presenter'));
    button.addEventListener('click', openPresenter);
    hint.append(button, ' · PageDown / PageUp · B blanks');
    document.body.append(hint);
  }
  const fromHash = parseInt(location.hash.slice(1), 10);
  show(Number.isInteger(fromHash) ? fromHash : 1);
  document.documentElement.dataset.ready = 'true';
})();

// The figure component (posviz.ui.plot): draws a figure spec with Plotly's cartesian bundle, served by
// the app itself, and sends a box selection back. Static, no user text; the figure arrives as JSON data,
// with the component's own words in the page's language (doc.texts, set as text, never as markup).
const BUNDLE = "app/static/plotly-cartesian.min.js";  // posviz.ui.plot.BUNDLE

function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__posvizPlotly) {
    window.__posvizPlotly = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL(BUNDLE, document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { window.__posvizPlotly = null; reject(new Error("could not load " + BUNDLE)); };
      document.head.appendChild(s);
    });
  }
  return window.__posvizPlotly;
}

const decoder = new TextDecoder();

// Full screen, as st.plotly_chart's own button: the figure fills the screen (Esc leaves).
const fullScreen = (title) => ({
  name: "fullscreen",
  title,
  icon: {
    width: 24, height: 24,
    path: "M3 3h7v2H5v5H3V3zm11 0h7v7h-2V5h-5V3zM3 14h2v5h5v2H3v-7zm16 0h2v7h-7v-2h5v-5z",
  },
  click: (gd) => (document.fullscreenElement ? document.exitFullscreen() : gd.requestFullscreen()),
});

function followFullScreen(Plotly, box) {
  if (box.__posvizFull) return;
  box.__posvizFull = true;
  box.addEventListener("fullscreenchange", () => {  // fired at the element entering or leaving
    if (!box.__posvizDrawn) return;
    const full = document.fullscreenElement === box;
    if (full === Boolean(box.__posvizHeight)) return;
    if (full) box.__posvizHeight = box.__posvizDrawn;  // the figure's own height, to come back to
    const height = full ? box.clientHeight : box.__posvizHeight;
    if (!full) box.__posvizHeight = 0;
    Plotly.relayout(box, { height, width: full ? box.clientWidth : null });  // null: the column's width again
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const box = parentElement.querySelector(".posviz-plot");
  const wait = parentElement.querySelector(".posviz-plot-wait");
  if (!box || !data) return;
  const doc = JSON.parse(typeof data === "string" ? data : decoder.decode(data));
  const fig = doc.figure;
  const texts = Object.assign(
    { wait: "Drawing the figure…", fullScreen: "Full screen (Esc leaves)", failed: "The figure could not be drawn:" },
    doc.texts || {},
  );
  const height = (fig.layout && fig.layout.height) || 450;
  box.setAttribute("aria-label", doc.alt || "");
  if (!box.__posvizDrawn) {
    wait.style.height = height + "px";
    wait.textContent = texts.wait;
  }
  let gone = false;
  plotly().then((Plotly) => {
    if (gone) return;
    const layout = Object.assign({}, fig.layout || {}, { autosize: true });
    delete layout.width;
    if (box.__posvizHeight) {  // redrawn while full screen
      Object.assign(layout, { height: box.clientHeight, width: box.clientWidth });
    }
    const config = Object.assign({ responsive: true }, doc.config || {});
    config.modeBarButtonsToAdd = [fullScreen(texts.fullScreen)];
    if (doc.select) {  // as st.plotly_chart(selection_mode="box"): the box tool, and picked
      config.modeBarButtonsToAdd.unshift("select2d");
      if (layout.dragmode === undefined) layout.dragmode = "select";
    }
    followFullScreen(Plotly, box);
    // frames too: the skew's animation plays them in the browser
    return Plotly.react(box, { data: fig.data || [], layout, config, frames: fig.frames || [] }).then(() => {
      wait.style.display = "none";
      box.__posvizDrawn = height;  // drawn, at this height (full screen aside)
      if (doc.select && !box.__posvizSelect) {
        box.__posvizSelect = true;
        box.on("plotly_selected", (e) => {
          const range = e && e.range;
          const boxes = range && range.x && range.y ? [{ x: range.x, y: range.y }] : [];
          setStateValue("selection", { box: boxes, points: [] });
        });
      }
    });
  }).catch((err) => { wait.textContent = texts.failed + " " + err.message; });
  return () => { gone = true; };
}

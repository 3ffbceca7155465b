// seam serve: follows running runs through server-sent events and updates the page in place;
// once a run ends, the page is reloaded (the server renders the final state).
"use strict";

// follow calls onEvent with each event of run id; node names the node whose live log the
// events are to carry, if any.
function follow(id, onEvent, node) {
  const q = node ? "?node=" + encodeURIComponent(node) : "";
  const es = new EventSource("/runs/" + encodeURIComponent(id) + "/events" + q);
  let status = "running";
  es.onmessage = (m) => { const ev = JSON.parse(m.data); status = ev.status; onEvent(ev); };
  // A run "interrupted" at its end was left running by an owner that is gone: the last event
  // said so in place (a run still "running" there is one the server could not yet tell).
  es.addEventListener("end", () => { es.close(); if (status !== "running" && status !== "interrupted") location.reload(); });
  es.onerror = () => { if (es.readyState === EventSource.CLOSED) { es.close(); } };
}

// The signs of node statuses besides their colours, as the server draws them (statusIcon).
const ICONS = { passed: "✓", warned: "!", failed: "✗", running: "▶", skipped: "-", canceled: "⊘", waiting: "⏸", unfinished: "?" };

function setStatus(el, status, text) {
  if (!el) return;
  // classList, not className: an SVG element's className is not a string.
  for (const c of Array.from(el.classList)) { if (c.startsWith("st-")) el.classList.remove(c); }
  el.classList.add("st-" + status);
  if (text !== undefined) el.textContent = text;
}

// redrawTimeline fetches the run's timeline as the server draws it, once a second at most,
// the last change included (a later event while one is due is drawn by it).
let timelineDue = false;
function redrawTimeline(id) {
  const tl = document.getElementById("timeline-live");
  if (!tl || timelineDue) return;
  timelineDue = true;
  setTimeout(() => {
    timelineDue = false;
    fetch("/runs/" + encodeURIComponent(id) + "/timeline")
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => { tl.innerHTML = html; })
      .catch(() => {}); // the next event tries again
  }, 1000);
}

// showLog puts log, the end of what the panel's node has printed so far (the server sends
// at most its last MaxLogTail bytes, so the page keeps no more), on the panel: in the log
// the page drew, or in one drawn now, when the panel was opened before the node's first
// line (or before the node started).
function showLog(panel, log) {
  let pre = document.getElementById("log");
  if (!pre) {
    const title = document.createElement("h3");
    title.id = "log-title";
    const a = document.createElement("a");
    a.id = "log-download";
    a.href = panel.dataset.logHref;
    a.download = "";
    a.textContent = panel.dataset.logDownload;
    title.append(panel.dataset.logTitle + " · ", a);
    pre = document.createElement("pre");
    pre.id = "log";
    pre.className = "log";
    panel.append(title, pre);
  }
  pre.textContent = log;
}

document.addEventListener("DOMContentLoaded", () => {
  const run = document.getElementById("run");
  if (run && run.dataset.live) {
    const panel = document.getElementById("panel");
    const logNode = panel && panel.dataset.follow;
    follow(run.dataset.run, (ev) => {
      const n = logNode && ev.nodes[logNode];
      if (n && n.log) showLog(panel, n.log);
      setStatus(document.getElementById("run-status"), ev.status, ev.statusText);
      if (ev.status === "interrupted") {
        const notice = document.getElementById("interrupted");
        if (notice) notice.hidden = false;
        const cancel = document.getElementById("cancel");
        if (cancel) cancel.form.hidden = true; // no one is left to cancel
        const elsewhere = document.getElementById("run-elsewhere");
        if (elsewhere) elsewhere.hidden = true; // nor a process to stop
      }
      redrawTimeline(run.dataset.run);
      for (const [id, n] of Object.entries(ev.nodes)) {
        for (const g of document.querySelectorAll('g.node[data-node="' + CSS.escape(id) + '"]')) {
          setStatus(g, n.status);
          const icon = g.querySelector("tspan.icon");
          if (icon) icon.textContent = ICONS[n.status] || "…";
          const note = g.querySelector("tspan.note");
          if (note) note.textContent = n.note ? " · " + n.note : "";
        }
        const row = document.querySelector('tr[data-node="' + CSS.escape(id) + '"] [data-status]');
        setStatus(row, n.status, n.statusText);
      }
    }, logNode);
  }
  // The runs page follows its running rows (the first ten).
  for (const row of Array.from(document.querySelectorAll("tr[data-live]")).slice(0, 10)) {
    follow(row.dataset.live, (ev) => setStatus(row.querySelector("[data-status]"), ev.status, ev.statusText));
  }
});

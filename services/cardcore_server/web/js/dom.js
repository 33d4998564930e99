// A few DOM helpers: elements from a tag, attributes and children; no framework.

/** h("button", {class: "x", onclick}, "text", child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") {
      for (const [dk, dv] of Object.entries(v)) if (dv !== null && dv !== undefined) el.dataset[dk] = dv;
    }
    else if (k === "text") el.textContent = v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * Replace `container`'s children, keeping the keyboard focus where it was: the element with
 * the same `data-key` (a button that is rebuilt after every entry keeps the focus).
 */
export function replaceKeepingFocus(container, ...children) {
  const active = document.activeElement;
  const focusKey = active && container.contains(active) ? active.dataset?.key : null;
  container.replaceChildren(...children.flat(Infinity).filter(Boolean));
  if (focusKey) {
    const again = container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

export function seatName(seat, mySeat) {
  return seat === mySeat ? `seat ${seat} (you)` : `seat ${seat}`;
}

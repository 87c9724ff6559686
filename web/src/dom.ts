// Small helpers to build the page's elements.

/** An element with a class, and children (strings become text). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; text?: string; title?: string; attrs?: Record<string, string> } = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  if (props.title) el.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}

/** A button that runs `onClick`. */
export function button(label: string, onClick: () => void, props: { class?: string; disabled?: boolean; test?: string; title?: string } = {}): HTMLButtonElement {
  const b = h("button", { class: props.class, text: label, title: props.title });
  b.type = "button";
  b.disabled = props.disabled ?? false;
  if (props.test) b.dataset.test = props.test;
  b.addEventListener("click", onClick);
  return b;
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: (Node | string | null | undefined | false)[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}

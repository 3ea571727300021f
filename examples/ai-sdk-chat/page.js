// The chat page's script (bundled for the browser by server.ts): the AI SDK's own chat state
// machine (`AbstractChat` + `DefaultChatTransport`, what `useChat` wraps) rendered with plain DOM.
import { AbstractChat, DefaultChatTransport } from "ai";

const $ = (id) => document.getElementById(id);

/** The ChatState the AI SDK's chat writes to; every change re-renders. */
class DomState {
  #status = "ready";
  #error = undefined;
  messages = [];
  constructor(onChange) {
    this.onChange = onChange;
  }
  get status() {
    return this.#status;
  }
  set status(value) {
    this.#status = value;
    this.onChange();
  }
  get error() {
    return this.#error;
  }
  set error(value) {
    this.#error = value;
    this.onChange();
  }
  pushMessage(message) {
    this.messages = [...this.messages, message];
    this.onChange();
  }
  popMessage() {
    this.messages = this.messages.slice(0, -1);
    this.onChange();
  }
  replaceMessage(index, message) {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.onChange();
  }
  snapshot(thing) {
    return structuredClone(thing);
  }
}

class Chat extends AbstractChat {
  constructor(init) {
    super({ ...init, state: new DomState(() => render()) });
  }
}

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function render() {
  const list = $("messages");
  list.replaceChildren();
  for (const message of chat.messages) {
    const box = el("div", { class: "message", "data-role": message.role });
    for (const part of message.parts) {
      if (part.type === "text") box.append(el("div", { class: "text" }, part.text));
      else if (part.type === "reasoning") box.append(el("div", { class: "reasoning" }, part.text));
      else if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) {
        const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice(5);
        const tool = el("div", { class: "tool", "data-tool": name, "data-state": part.state });
        tool.append(el("code", {}, `${name} ${JSON.stringify(part.input ?? {})}`));
        if (part.state === "output-available") tool.append(el("pre", {}, JSON.stringify(part.output)));
        if (part.state === "output-error") tool.append(el("pre", { class: "error" }, part.errorText));
        box.append(tool);
      }
    }
    list.append(box);
  }
  $("status").textContent = chat.status;
  $("status").dataset.status = chat.status;
  $("error").textContent = chat.error ? String(chat.error.message) : "";
  $("stop").disabled = chat.status !== "streaming" && chat.status !== "submitted";
}

const chat = new Chat({
  transport: new DefaultChatTransport({ api: "/api/chat", body: () => ({ backend: $("backend").value }) }),
});

$("form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("prompt").value.trim();
  if (text === "") return;
  $("prompt").value = "";
  void chat.sendMessage({ text });
});
$("stop").addEventListener("click", () => void chat.stop());
render();

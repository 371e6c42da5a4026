// The reply form of a human node declared with a reply schema (`humanNode({ reply: schema })`): its
// fields are built from the node's JSON Schema in the machine definition (a checkbox for a boolean,
// a list for an enum, a number box for a number, a text box for a string, JSON for anything else),
// and the reply is sent as the JSON value they make. A node without a schema, or whose schema also
// takes plain text, keeps the text box.

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** One field for a property: its element and how to read it (undefined when left empty). */
function field(name, schema, required) {
  const id = `reply-field-${name}`;
  const label = el('label', { htmlFor: id, textContent: `${name}${required ? '' : ' (optional)'}` });
  if (schema.type === 'boolean') {
    const box = el('input', { type: 'checkbox', id, name });
    return { element: el('div', { className: 'reply-field boolean' }, box, label), read: () => box.checked };
  }
  if (Array.isArray(schema.enum)) {
    const select = el('select', { id, name }, ...(required ? [] : [el('option', { value: '', textContent: '—' })]), ...schema.enum.map((v, i) => el('option', { value: String(i), textContent: String(v) })));
    return { element: el('div', { className: 'reply-field' }, label, select), read: () => (select.value === '' ? undefined : schema.enum[Number(select.value)]) };
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const input = el('input', { type: 'number', id, name, step: schema.type === 'integer' ? '1' : 'any' });
    if (typeof schema.minimum === 'number' && Number.isSafeInteger(schema.minimum)) input.min = String(schema.minimum);
    if (typeof schema.maximum === 'number' && Number.isSafeInteger(schema.maximum)) input.max = String(schema.maximum);
    return { element: el('div', { className: 'reply-field' }, label, input), read: () => (input.value === '' ? undefined : Number(input.value)) };
  }
  if (schema.type === 'string') {
    const input = el('input', { id, name, autocomplete: 'off' });
    if (typeof schema.maxLength === 'number') input.maxLength = schema.maxLength;
    return { element: el('div', { className: 'reply-field' }, label, input), read: () => (input.value === '' ? undefined : input.value) };
  }
  const area = el('textarea', { id, name, rows: 3, spellcheck: false, placeholder: 'JSON' });
  return { element: el('div', { className: 'reply-field' }, label, area), read: () => (area.value.trim() === '' ? undefined : parseJson(area.value, name)) };
}

function parseJson(text, name) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: not JSON (${error.message})`);
  }
}

/** True for a union with a plain-text branch: the text box can say everything it takes. */
function takesText(schema) {
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) && branches.some((b) => b.type === 'string' && b.enum === undefined);
}

/**
 * The schema fields inside the reply form: `show(schema, key)` builds them for a waiting node (once
 * per `key`; `undefined` removes them and brings the text box back); `reply()` is the value to send,
 * or throws naming a required field left empty; `active()` says whether fields are shown.
 */
export function createReplyForm({ fields, text }) {
  let shownKey = null;
  let readers = null;
  return {
    show(schema, key) {
      // A schema that also takes plain text (a gate's "PASS" or "FAIL: why") keeps the text box.
      if (!schema || takesText(schema)) {
        shownKey = null;
        readers = null;
        fields.replaceChildren();
        fields.hidden = true;
        return;
      }
      // The text box gives way to the fields.
      text.hidden = true;
      text.required = false;
      fields.hidden = false;
      if (key === shownKey) return;
      shownKey = key;
      if (schema.type === 'object' && schema.properties) {
        const required = new Set(schema.required ?? []);
        const built = Object.entries(schema.properties).map(([name, s]) => ({ name, required: required.has(name), ...field(name, s, required.has(name)) }));
        readers = () => {
          const value = {};
          for (const f of built) {
            const v = f.read();
            if (v === undefined && f.required) throw new Error(`${f.name} is required`);
            if (v !== undefined) value[f.name] = v;
          }
          return value;
        };
        fields.replaceChildren(...built.map((f) => f.element));
      } else {
        const only = field('reply', schema, true);
        readers = () => {
          const v = only.read();
          if (v === undefined) throw new Error('reply is required');
          return v;
        };
        fields.replaceChildren(only.element);
      }
    },
    active() {
      return readers !== null;
    },
    reply() {
      return readers();
    },
  };
}

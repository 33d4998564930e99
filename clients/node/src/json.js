// cardcore's canonical JSON (docs/log-format.md): the client writes receipts in it, and Node's
// own check of a log (crosscheck.js) hashes lines in it. Seeds beyond 2^53 are BigInt, never
// rounded.

/** Parse JSON like cardcore does: integers only (BigInt beyond 2^53), floats refused. */
export function parseJson(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`invalid JSON at ${i}: ${what}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const out = Object.create(null);
      ws();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        ws();
        if (text[i++] !== ':') fail('expected :');
        out[key] = value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] !== '}') fail('expected , or }');
        return out;
      }
    }
    if (c === '[') {
      i++;
      const out = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] !== ']') fail('expected , or ]');
        return out;
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    const m = /^-?(0|[1-9][0-9]*)([.eE])?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    if (m[2]) fail('floats are not allowed in cardcore JSON');
    i += m[0].length;
    const n = BigInt(m[0]);
    return n >= -BigInt(Number.MAX_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(n)
      : n;
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (text[i] !== '"') fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const out = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return out;
}

/** Canonical JSON (log-format.md): sorted keys, compact, UTF-8, integers only. Byte for byte
 *  what Python's `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes. */
export function canonical(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
      return `{${Object.keys(value)
        .sort(byCodePoint)
        .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
        .join(',')}}`;
    default:
      throw new TypeError(`not JSON: ${typeof value}`);
  }
}

function byCodePoint(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k] - y[k];
  return x.length - y.length;
}

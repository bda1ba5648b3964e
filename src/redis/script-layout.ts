/**
 * Named places in a script's KEYS and ARGV. A layout names the places of one record (a gate's
 * keys, a settle's six values); the TypeScript side writes a record with {@link place} and the
 * Lua reads it with `read` (ARGV) or `keys` (KEYS) by the same names, both from the one table
 * that {@link luaLayouts} writes into the script. Neither side counts positions by hand.
 */

/** One record of a script's KEYS or ARGV: its places, in order. */
export interface Layout<Name extends string> {
  /** The table's name in the Lua (`GATE_ARGS`). */
  readonly lua: string;
  /** The row naming it in the table beside the script (`ARGV per gate`). */
  readonly row: string;
  readonly names: readonly Name[];
  /** Places the Lua reads as strings; every other ARGV place is read as a number. */
  readonly text: readonly Name[];
}

export function layout<const Name extends string>(lua: string, row: string, names: readonly Name[], text: readonly Name[] = []): Layout<Name> {
  return { lua, row, names, text };
}

/** The values of one record, by name. */
export type Values<Name extends string, Value extends string | number> = { readonly [N in Name]: Value };

/** `values` in the order of `record`. */
export function place<Name extends string, Value extends string | number>(record: Layout<Name>, values: Values<Name, Value>): Value[] {
  return record.names.map((name) => values[name]);
}

/** What one script run is sent. */
export interface ScriptCall {
  keys: string[];
  args: Array<string | number>;
}

/** A reply as an error message shows it. */
export function describeReply(reply: unknown): string {
  try {
    return JSON.stringify(reply) ?? String(reply);
  } catch {
    return String(reply);
  }
}

const luaString = (name: string): string => `'${name}'`;

/**
 * The Lua that reads records by name: one table per layout, and `read(LAYOUT, at)` (ARGV) and
 * `keys(LAYOUT, at)` (KEYS), each returning the record and the place after it. A place missing,
 * or not a number where one is read, fails the script with the record's and the place's names.
 */
export function luaLayouts(records: ReadonlyArray<Layout<string>>): string {
  const tables = records.map(
    (record) =>
      `local ${record.lua} = { row = '${record.row}', names = { ${record.names.map(luaString).join(', ')} }, text = { ${record.text
        .map((name) => `${name} = true`)
        .join(', ')} } }`,
  );
  return `
${tables.join('\n')}
local function read(layout, at)
  local record = {}
  for i, name in ipairs(layout.names) do
    local value = ARGV[at + i - 1]
    if value == nil then error('ARGV ' .. layout.row .. ': ' .. name .. ' is missing') end
    if not layout.text[name] then
      local number = tonumber(value)
      -- NaN is no number either (it is never equal to itself).
      if number == nil or number ~= number then error('ARGV ' .. layout.row .. ': ' .. name .. ' is not a number (' .. value .. ')') end
      value = number
    end
    record[name] = value
  end
  return record, at + #layout.names
end
local function keys(layout, at)
  local record = {}
  for i, name in ipairs(layout.names) do
    local key = KEYS[at + i - 1]
    if key == nil then error('KEYS ' .. layout.row .. ': ' .. name .. ' is missing') end
    record[name] = key
  end
  return record, at + #layout.names
end
`;
}

// What each format is, as the core states it (ankita_formats, read once when the library is
// loaded): the package holds no list of format names and no branch on one.

import { native } from "#native";

/** @type {Map<string, import("./native.js").FormatFacts["formats"][number]> | null} */
let byName = null;

/**
 * The facts of the format `name` names (null or undefined: the default format), or undefined
 * for a name no format has (the core answers those).
 *
 * @param {unknown} name
 */
export function formatFacts(name) {
  const facts = native().formats;
  byName ??= new Map(facts.formats.map((f) => [f.name, f]));
  return byName.get(name ?? facts.default);
}

/**
 * Whether the format `name` names takes its system prompt as the request key `system`.
 *
 * @param {unknown} name
 */
export function takesSystem(name) {
  return formatFacts(name)?.takes_system === true;
}

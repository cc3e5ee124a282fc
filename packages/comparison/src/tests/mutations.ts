/** A named change to one place of a JSON document, for corpus tests. */
export interface Mutation {
  readonly name: string;
  /** JSON Pointer of the place changed. */
  readonly pointer: string;
  readonly apply: (document: unknown) => void;
}

type Container = Record<string, unknown> | unknown[];

const REPLACEMENTS: ReadonlyArray<readonly [string, unknown]> = [
  ["null", null],
  ["number 42", 42],
  ["fraction 1.5", 1.5],
  ["zero", 0],
  ["empty string", ""],
  ["unlisted string", "bogus"],
  ["valid status", "planned"],
  ["valid kind", "skill"],
  ["true", true],
  ["empty array", []],
  ["array of empty string", [""]],
  ["array of number", [1]],
  ["empty object", {}],
];

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

function locate(document: unknown, path: readonly (string | number)[]): Container {
  let current: unknown = document;
  for (const token of path) {
    if (!isContainer(current)) throw new Error("path does not exist");
    current = Array.isArray(current) ? current[Number(token)] : current[String(token)];
  }
  if (!isContainer(current)) throw new Error("path does not lead to a container");
  return current;
}

function pointerOf(path: readonly (string | number)[]): string {
  return path.map((token) => `/${token}`).join("");
}

/**
 * Every single-place mutation of a document: each value replaced by values of other types and
 * shapes, each object key deleted, an unknown key added to each object, an item pushed to each array.
 * Some of them keep the document valid (an empty list, another allowed enum value), on purpose.
 */
export function listMutations(document: unknown): Mutation[] {
  const mutations: Mutation[] = [];
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (path.length > 0) {
      const parentPath = path.slice(0, -1);
      const key = path[path.length - 1] ?? "";
      for (const [name, replacement] of REPLACEMENTS) {
        mutations.push({
          name: `replace with ${name}`,
          pointer: pointerOf(path),
          apply: (doc) => {
            const parent = locate(doc, parentPath);
            if (Array.isArray(parent)) parent[Number(key)] = structuredClone(replacement);
            else parent[String(key)] = structuredClone(replacement);
          },
        });
      }
      if (typeof key === "string") {
        mutations.push({
          name: "delete key",
          pointer: pointerOf(path),
          apply: (doc) => {
            const parent = locate(doc, parentPath);
            if (!Array.isArray(parent)) delete parent[key];
          },
        });
      }
    }
    if (Array.isArray(value)) {
      mutations.push({
        name: "push a copy of the first item",
        pointer: pointerOf(path),
        apply: (doc) => {
          const list = locate(doc, path);
          if (Array.isArray(list)) list.push(structuredClone(list[0] ?? "extra"));
        },
      });
      value.forEach((item, i) => {
        visit(item, [...path, i]);
      });
    } else if (isContainer(value)) {
      mutations.push({
        name: "add an unknown key",
        pointer: pointerOf(path),
        apply: (doc) => {
          const target = locate(doc, path);
          if (!Array.isArray(target)) target.colour = "teal";
        },
      });
      for (const [key, child] of Object.entries(value)) visit(child, [...path, key]);
    }
  };
  visit(document, []);
  return mutations;
}

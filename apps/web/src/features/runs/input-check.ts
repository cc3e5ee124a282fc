/** The input gate's rules, as the server's `wait_context.input_schema` carries them. */
export interface InputRules {
  pattern?: string;
  min_length?: number;
  max_length?: number;
}

/**
 * The server's input check (packages/runs `checkInput`), in the same order with the same messages; a
 * pattern the browser cannot compile is left to the server.
 */
export function checkInput(text: string, rules: InputRules | undefined): string | undefined {
  if (rules === undefined) return undefined;
  if (rules.min_length !== undefined && text.length < rules.min_length) {
    return `The input must be at least ${rules.min_length} characters.`;
  }
  if (rules.max_length !== undefined && text.length > rules.max_length) {
    return `The input must be at most ${rules.max_length} characters.`;
  }
  if (rules.pattern !== undefined) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(rules.pattern, "u");
    } catch {
      re = undefined;
    }
    if (re !== undefined && !re.test(text)) return "The input does not match the expected format.";
  }
  return undefined;
}

/** Bad operator input: the CLI prints the message and exits non-zero (no stack trace). */
export class CommandError extends Error {}

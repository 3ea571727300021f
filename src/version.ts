/** This package's version, reported to CLIs as `CLAUDE_AGENT_SDK_VERSION`. Keep in sync with package.json (a unit test checks). */
export const SDK_VERSION = "0.2.0";

/**
 * `svc completion bash|zsh`: a completion script for the shell, printed to stdout (README "Installing the
 * command"). It completes commands, each command's verbs and the common flags; files complete as usual.
 */
import { didYouMean } from './cli-suggest.js';
import { named } from './cli-usage.js';

const tree: Readonly<Record<string, readonly string[]>> = {
  serve: ['--config', '--company', '--help'],
  replay: ['--config', '--stream', '--from-seq', '--since', '--subject', '--verify', '--help'],
  config: ['get', 'put', 'patch', 'validate', 'diff', 'revisions', 'revert', 'reload', 'schema'],
  secrets: ['list', 'put', 'reveal', 'rm', 'rekey'],
  keygen: ['--help'],
  events: ['list', 'get', 'trace', 'tail'],
  work: ['list', 'show', 'create', 'comment', 'move', 'inbox', 'mine'],
  pages: ['list', 'show', 'search', 'create'],
  fleet: ['status', 'remove'],
  agents: ['list', 'show', 'activity', 'pause', 'resume', 'clear-needs', '--json'],
  backup: ['list', '--dir'],
  restore: ['--from', '--config', '--help'],
  projections: ['list', 'rebuild', '--config', '--help'],
  completion: ['bash', 'zsh'],
};
/** Commands that talk to a running node take its address flags; the local ones only their own. */
const clients: ReadonlySet<string> = new Set([
  'config',
  'secrets',
  'events',
  'work',
  'pages',
  'fleet',
  'agents',
  'backup',
]);
const clientFlags = ['--url', '--config', '--timeout', '--help'];
const wordsOf = (cmd: string, words: readonly string[]): string[] =>
  clients.has(cmd) ? [...words, ...clientFlags.filter((f) => !words.includes(f))] : [...words];

function bash(): string {
  const cases = Object.entries(tree)
    .map(([cmd, words]) => `      ${cmd}) words="${wordsOf(cmd, words).join(' ')}" ;;`)
    .join('\n');
  return `# svc completion for bash: eval "$(svc completion bash)" (e.g. in ~/.bashrc)
_svc() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${Object.keys(tree).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
      *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [ \${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -o default -F _svc svc
`;
}

function zsh(): string {
  const cases = Object.entries(tree)
    .map(([cmd, words]) => `    ${cmd}) compadd -- ${wordsOf(cmd, words).join(' ')} ;;`)
    .join('\n');
  return `#compdef svc
# svc completion for zsh: eval "$(svc completion zsh)" (e.g. in ~/.zshrc, after compinit)
_svc() {
  if (( CURRENT == 2 )); then
    compadd -- ${Object.keys(tree).join(' ')} --help --version
    return
  fi
  case "\${words[2]}" in
${cases}
  esac
  _files
}
compdef _svc svc
`;
}

/**
 * Why `svc completion WORD` prints no script (a usage error): no shell given, a flag (named without its
 * `=VALUE`, which may be a credential), or a shell with no script here.
 */
export function completionRefusal(word: string | undefined): string {
  if (word === undefined) return 'completion needs a shell: bash or zsh';
  if (word.startsWith('-')) return `unknown flag ${named(word)}; completion needs a shell: bash or zsh`;
  return `completion for ${word} is not supported; the supported shells are bash and zsh${didYouMean(word, ['bash', 'zsh'])}`;
}

/** The script for `shell`, or null for a shell this does not know. */
export function completionScript(shell: string | undefined): string | null {
  if (shell === 'bash') return bash();
  if (shell === 'zsh') return zsh();
  return null;
}

export const completionHelp = `Usage: svc completion bash|zsh

Prints a completion script for the shell. Load it with:
  bash:  eval "$(svc completion bash)"     (add the line to ~/.bashrc to keep it)
  zsh:   eval "$(svc completion zsh)"      (in ~/.zshrc, after compinit)
`;

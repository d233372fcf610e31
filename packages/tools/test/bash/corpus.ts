/**
 * The security corpus: for each command, exactly the permission requests the bash tool makes
 * (permission and patterns, in asking order: external_directory, edit, bash). Workspace /ws,
 * home /home/u, /ws/link → /outside. Categories: compound commands, substitutions, wrappers and
 * spellings, redirects and writing commands, outside paths; then what the kernel sees: symlinks
 * before `..`, brace expansion, links made mid-script, code from stdin, wrappers, hidden code
 * and deletes.
 */
import { type Asked, U } from "./support.ts"

export interface Case {
  readonly category: string
  readonly command: string
  readonly asks: Asked
  readonly cwd?: string
}

const bash = (...patterns: ReadonlyArray<string>) => ["bash", patterns] as const
const ext = (...patterns: ReadonlyArray<string>) => ["external_directory", patterns] as const
const edit = (...patterns: ReadonlyArray<string>) => ["edit", patterns] as const
const c = (category: string, command: string, ...asks: Asked): Case => ({ category, command, asks })

export const corpus: ReadonlyArray<Case> = [
  // Plain commands: the pattern is the command without assignments and redirects.
  c("plain", "ls", bash("ls")),
  c("plain", "git status", bash("git status")),
  c("plain", "git log --oneline -5", bash("git log --oneline -5")),
  c("plain", "kill -9 1234", bash("kill -9 1234")),
  c("plain", "grep -r \"/api/\" src", bash("grep -r \"/api/\" src")),
  c("plain", "sed 's/a/b/' a.txt", bash("sed 's/a/b/' a.txt")),
  c("plain", "awk '/x/ {print}' a.txt", bash("awk '/x/ {print}' a.txt")),
  c("plain", "ls src/*.ts", bash("ls src/*.ts")),
  c("plain", "echo $((1+2))", bash("echo $((1+2))")),
  c("plain", "echo '$(x)'", bash("echo '$(x)'")),
  c("plain", "# only a comment"),

  // Every part of a chain, list, pipeline or subshell.
  c("chain", "git status && rm -rf build", edit("build"), bash("git status", "rm -rf build")),
  c("chain", "git status; rm a.txt", edit("a.txt"), bash("git status", "rm a.txt")),
  c("chain", "git status || rm a.txt", edit("a.txt"), bash("git status", "rm a.txt")),
  c("chain", "git log | rm a.txt", edit("a.txt"), bash("git log", "rm a.txt")),
  c("chain", "git status\nrm a.txt", edit("a.txt"), bash("git status", "rm a.txt")),
  c("chain", "(git status; rm a.txt)", edit("a.txt"), bash("git status", "rm a.txt")),
  c("chain", "echo a & rm a.txt", edit("a.txt"), bash("echo a", "rm a.txt")),
  c("chain", "(cd sub; git status)", bash("git status")),
  c("chain", "! git diff --quiet && echo changed", bash("git diff --quiet", "echo changed")),
  c("chain", "git log |& grep fix", bash("git log", "grep fix")),

  // Substitutions, process substitutions, compound statements, functions.
  c("substitution", "git status $(touch m)", edit("m"), bash("touch m", "git status $(touch m)")),
  c("substitution", "echo `rm a.txt`", edit("a.txt"), bash("rm a.txt", "echo `rm a.txt`")),
  c("substitution", "cat <(curl x)", bash("curl x", "cat <(curl x)")),
  c("substitution", "echo \"$(rm -rf /)\"", ext("/*"), edit(".."), bash("rm -rf /", "echo \"$(rm -rf /)\"")),
  c("substitution", "{ rm a.txt; }", edit("a.txt"), bash("rm a.txt")),
  c("substitution", "if true; then rm a.txt; fi", edit("a.txt"), bash("true", "rm a.txt")),
  c("substitution", "while false; do rm a.txt; done", edit("a.txt"), bash("false", "rm a.txt")),
  c("substitution", "case $x in a) rm a.txt;; esac", edit("a.txt"), bash("rm a.txt")),
  c("substitution", "f() { rm a.txt; }; f", edit("a.txt"), bash("rm a.txt")),
  c("substitution", "cat <<EOF\n$(rm a.txt) hi\nEOF", edit("a.txt"), bash("rm a.txt", "cat")),
  c("substitution", "a=(1 $(rm a.txt))", edit("a.txt"), bash("rm a.txt")),
  c("substitution", "[[ -f x && $(rm a.txt) ]]", edit("a.txt"), bash("rm a.txt")),
  c("substitution", "echo ${a:-$(rm a.txt)}", edit("a.txt"), bash("rm a.txt", "echo ${a:-$(rm a.txt)}")),
  c("substitution", "X=$(rm a.txt) npm --version", edit("a.txt"), bash("rm a.txt", "npm --version", "X=$(rm a.txt) npm --version")),
  c("substitution", "$(printf rm) a.txt", bash("printf rm", "$(printf rm) a.txt", U("$(printf rm) a.txt"))),
  c("substitution", "\"$CMD\" a.txt", bash("\"$CMD\" a.txt", U("\"$CMD\" a.txt"))),
  c("substitution", "for f in *.log; do rm $f; done", bash("rm $f", U("for f in *.log; do rm $f; done"))),
  c("substitution", "{rm,a.txt}", bash(U("{rm,a.txt}"))),
  c("substitution", "/bin/r? a.txt", bash("/bin/r? a.txt", U("/bin/r? a.txt"))),

  // Assignments, wrappers, option placement, `--`, path spellings.
  c("wrapper", "CI=true git commit -m x", bash("git commit -m x")),
  c("wrapper", "git -C . commit -m x", bash("git commit -m x")),
  c("wrapper", "git -c core.pager=evil log", bash("git log", "git -c core.pager=evil log", U("git -c core.pager=evil log"))),
  c("wrapper", "git diff --", bash("git diff --")),
  c("wrapper", "env rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "/bin/rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "\\rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "'rm' a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "timeout 5 rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "timeout -s KILL 5 rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "nice -n 5 rm a.txt", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "nohup npm start &", bash("npm start")),
  c("wrapper", "time make build", bash("make build")),
  c("wrapper", "stdbuf -oL npm test", bash("npm test")),
  c("wrapper", "sudo rm a.txt", edit("a.txt"), bash("rm a.txt", "sudo rm a.txt")),
  c("wrapper", "sudo -u bob timeout 5 rm a.txt", edit("a.txt"), bash("rm a.txt", "sudo -u bob timeout 5 rm a.txt")),
  c("wrapper", "sudo -s", bash("sudo -s")),
  c("wrapper", "xargs rm < list.txt", bash("rm", U("xargs rm < list.txt"))),
  c("wrapper", "git ls-files | xargs grep foo", bash("git ls-files", "grep foo", U("git ls-files | xargs grep foo"))),
  c("wrapper", "find . -name '*.tmp' -exec rm {} \\;", edit("."), bash("find . -name '*.tmp' -exec rm {} \\;", "rm {}")),
  c("wrapper", "find /tmp -delete", ext("/tmp/*"), edit("../tmp"), bash("find /tmp -delete")),
  c("wrapper", "bash -c 'rm a.txt'", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "sh -c \"git status && rm a.txt\"", edit("a.txt"), bash("git status", "rm a.txt")),
  c("wrapper", "bash -lc 'git status'", bash("bash -lc 'git status'", "git status")),
  c("wrapper", "bash -c \"$SCRIPT\"", bash(U("bash -c \"$SCRIPT\""))),
  c("wrapper", "eval \"rm a.txt\"", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "watch -n 1 'ls -l'", bash("ls -l")),
  c("wrapper", "trap 'rm a.txt' EXIT", edit("a.txt"), bash("rm a.txt")),
  c("wrapper", "env -C /tmp ls", ext("/tmp/*"), bash("ls")),
  c("wrapper", "LD_PRELOAD=/tmp/x.so ls", bash("ls", "LD_PRELOAD=/tmp/x.so ls", U("LD_PRELOAD=/tmp/x.so ls"))),
  c("hidden", "GIT_PAGER='rm x' git log", bash("git log", "GIT_PAGER='rm x' git log", U("GIT_PAGER='rm x' git log"))),
  c("hidden", "PAGER=cat git log", bash("git log", "PAGER=cat git log")),
  c("wrapper", "/tmp/evil/git status", ext("/tmp/evil/*"), bash("git status", "/tmp/evil/git status")),
  c("wrapper", "export PATH=/tmp:$PATH; git status", bash("export PATH=/tmp:$PATH", "git status")),
  c("wrapper", "count=3; echo $count", bash("echo $count")),
  c("wrapper", "command -v git", bash("command -v git")),

  // Redirect targets and write-capable commands are edits.
  c("redirect", "echo x > a.txt", edit("a.txt"), bash("echo x")),
  c("redirect", "echo x >> a.txt", edit("a.txt"), bash("echo x")),
  c("redirect", "echo x >| a.txt", edit("a.txt"), bash("echo x")),
  c("redirect", "make &> log.txt", edit("log.txt"), bash("make")),
  c("redirect", "make >& log.txt", edit("log.txt"), bash("make")),
  c("redirect", "echo x | tee a.txt", edit("a.txt"), bash("echo x", "tee a.txt")),
  c("redirect", "sed -i s/a/b/ a.txt", edit("a.txt"), bash("sed -i s/a/b/ a.txt")),
  c("redirect", "cp a.txt b.txt", edit("b.txt"), bash("cp a.txt b.txt")),
  c("redirect", "mv a.txt b.txt", edit("a.txt", "b.txt"), bash("mv a.txt b.txt")),
  c("redirect", "dd if=/dev/zero of=out.bin count=1", edit("out.bin"), bash("dd if=/dev/zero of=out.bin count=1")),
  c("redirect", "sort -o out.txt list.txt", edit("out.txt"), bash("sort -o out.txt list.txt")),
  c("redirect", "echo x > /dev/null", bash("echo x")),
  c("redirect", "npm test 2>&1", bash("npm test")),
  c("redirect", "ls >&2", bash("ls")),
  c("redirect", "cat > \"$VAR/x\"", bash("cat", U("cat > \"$VAR/x\""))),
  c("redirect", "cargo check > ~/.zshrc", ext("/home/u/*"), edit("../home/u/.zshrc"), bash("cargo check")),
  c("redirect", "cat <<'EOF' > ~/.bashrc\nx\nEOF", ext("/home/u/*"), edit("../home/u/.bashrc"), bash("cat")),
  c("redirect", "while read l; do echo $l; done < list.txt", bash("read l", "echo $l")),
  c("redirect", "mysql db < /tmp/dump.sql", ext("/tmp/*"), bash("mysql db")),

  // Paths outside the workspace, whatever the command.
  c("external", "head -1 /etc/hosts", ext("/etc/*"), bash("head -1 /etc/hosts")),
  c("external", "ls /etc", ext("/etc/*"), bash("ls /etc")),
  c("external", "tail ~/.bashrc", ext("/home/u/*"), bash("tail ~/.bashrc")),
  c("external", "tee ~/x", ext("/home/u/*"), edit("../home/u/x"), bash("tee ~/x")),
  c("external", "rm $HOME/x", ext("/home/u/*"), edit("../home/u/x"), bash("rm $HOME/x")),
  c("external", "cp a.txt ~/b", ext("/home/u/*"), edit("../home/u/b"), bash("cp a.txt ~/b")),
  c("external", "cd /; ls", ext("/*"), bash("ls")),
  c("external", "ls ./src", bash("ls ./src")),
  c("external", "cat src/a.ts", bash("cat src/a.ts")),
  c("external", "cat link/secret", ext("/outside/*"), bash("cat link/secret")),
  c("external", "python /tmp/x.py", ext("/tmp/*"), bash("python /tmp/x.py")),
  c("external", "curl -o /tmp/out https://example.com", ext("/tmp/*"), bash("curl -o /tmp/out https://example.com")),
  c("external", "npm test -- --outDir=/tmp/o", ext("/tmp/*"), bash("npm test -- --outDir=/tmp/o")),
  c("external", "git -C /etc status", ext("/etc/*"), bash("git status")),
  c("external", "cat /ws/../etc/passwd", ext("/etc/*"), bash("cat /ws/../etc/passwd")),

  // cd tracking: later relative paths resolve in the new directory.
  c("cd", "cd src && cat ../../etc/passwd", ext("/etc/*"), bash("cat ../../etc/passwd")),
  c("cd", "cd /tmp && rm x", ext("/tmp/*"), edit("../tmp/x"), bash("rm x")),
  c("cd", "cd sub; cd ..; cd ..; ls x", ext("/*"), bash("ls x")),
  c("cd", "(cd /tmp); cat a.txt", ext("/tmp/*"), bash("cat a.txt")),
  c("cd", "cd ~ && cat .bashrc", ext("/home/u/*"), bash("cat .bashrc")),
  c("cd", "pushd /tmp && popd && cat a.txt", ext("/tmp/*"), bash("cat a.txt")),
  c("cd", "cd $DIR && rm -rf *", bash("rm -rf *", U("cd $DIR && rm -rf *"))),
  c("cd", "cd - && ls x", bash("ls x", U("cd - && ls x"))),
  { category: "cd", command: "ls", cwd: "/tmp", asks: [ext("/tmp/*"), bash("ls")] },
  { category: "cd", command: "cat ../a.txt", cwd: "sub", asks: [bash("cat ../a.txt")] },

  // Paths the kernel's way: `..` after a symlink steps up from the link's target (/ws/link → /outside).
  c("kernel", "cat link/../outside/secret", ext("/outside/*"), bash("cat link/../outside/secret")),
  c("kernel", "echo x > link/../outside/f", ext("/outside/*"), edit("../outside/f"), bash("echo x")),
  c("kernel", "rm -f link/../outside/secret", ext("/outside/*"), edit("../outside/secret"), bash("rm -f link/../outside/secret")),
  c("kernel", "cat link/../ws/a.txt", bash("cat link/../ws/a.txt")),
  c("kernel", "cat sub/../a.txt", bash("cat sub/../a.txt")),
  c(
    "kernel",
    "perl -pi -e s/A/B/ sub/../../outside/secret",
    ext("/outside/*"),
    bash("perl -pi -e s/A/B/ sub/../../outside/secret", U("perl -pi -e s/A/B/ sub/../../outside/secret"))
  ),
  c("kernel", "tar -cf sub/../../outside/x.tar a.txt", ext("/outside/*"), bash("tar -cf sub/../../outside/x.tar a.txt")),
  c("kernel", "make OUT=sub/../../outside", ext("/outside/*"), bash("make OUT=sub/../../outside")),
  c("kernel", "grep -rf ../outside/secret .", ext("/outside/*"), bash("grep -rf ../outside/secret .")),
  c("kernel", "head -n5 /etc/hosts", ext("/etc/*"), bash("head -n5 /etc/hosts")),
  c("kernel", "sort -uo ../out.txt a.txt", ext("/*"), edit("../out.txt"), bash("sort -uo ../out.txt a.txt")),

  // Brace expansion: the words the shell will see.
  c("braces", "rm -f {y,../outside/secret}", ext("/outside/*"), edit("y", "../outside/secret"), bash("rm -f y ../outside/secret")),
  c("braces", "cat {a.txt,../outside/secret}", ext("/outside/*"), bash("cat a.txt ../outside/secret")),
  c("braces", "rm {x,{y,../../etc/z}}", ext("/etc/*"), edit("x", "y", "../etc/z"), bash("rm x y ../../etc/z")),
  c("braces", "touch f{1..3}.txt", edit("f1.txt", "f2.txt", "f3.txt"), bash("touch f1.txt f2.txt f3.txt")),
  c("braces", "ls {01..03}", bash("ls 01 02 03")),
  c("braces", "cat ~/{.bashrc,.profile}", ext("/home/u/*"), bash("cat ~/.bashrc ~/.profile")),
  c("braces", "cat '{a,../x}'", bash("cat '{a,../x}'")),
  c("braces", "echo {1..5000}", bash("echo {1..5000}", U("echo {1..5000}"))),

  // Links made by the script: their targets resolve from the link's directory, and paths through
  // them afterwards are not analysable.
  c(
    "link",
    "mkdir -p a/b && cd a/b && ln -s ../outside ../../lnk; cd ../..; cat lnk/secret",
    ext("/outside/*"),
    edit("lnk"),
    bash("mkdir -p a/b", "ln -s ../outside ../../lnk", "cat lnk/secret", U("mkdir -p a/b && cd a/b && ln -s ../outside ../../lnk; cd ../..; cat lnk/secret"))
  ),
  c("link", "ln -s /etc e && cat e/passwd", ext("/etc/*"), edit("e"), bash("ln -s /etc e", "cat e/passwd", U("ln -s /etc e && cat e/passwd"))),
  c("link", "cp -s /etc/passwd p; cat p", ext("/etc/*"), edit("p"), bash("cp -s /etc/passwd p", "cat p", U("cp -s /etc/passwd p; cat p"))),
  c("link", "ln -s ../outside sub/l", edit("sub/l"), bash("ln -s ../outside sub/l")),
  c("link", "ln -s a.txt b.txt", edit("b.txt"), bash("ln -s a.txt b.txt")),
  c("link", "link /etc/passwd h; cat h", ext("/etc/*"), edit("h"), bash("link /etc/passwd h", "cat h", U("link /etc/passwd h; cat h"))),

  // Code read from standard input, a descriptor or a process substitution: nobody sees it first.
  c("stdin", "echo rm x | sh", bash("echo rm x", "sh", U("echo rm x | sh"))),
  c("stdin", "echo rm x | bash -s", bash("echo rm x", "bash -s", U("echo rm x | bash -s"))),
  c("stdin", "bash <<< 'rm x'", bash("bash", U("bash <<< 'rm x'"))),
  c("stdin", "bash < s.sh", bash("bash", U("bash < s.sh"))),
  c("stdin", "bash /dev/fd/3 3< s.sh", bash("bash /dev/fd/3", U("bash /dev/fd/3 3< s.sh"))),
  c("stdin", "source /dev/stdin <<< 'rm x'", bash("source /dev/stdin", U("source /dev/stdin <<< 'rm x'"))),
  c("stdin", ". <(echo rm x)", bash("echo rm x", ". <(echo rm x)", U(". <(echo rm x)"))),
  c("stdin", "eval \"$CODE\"", bash(U("eval \"$CODE\""))),
  c("stdin", "at now <<< 'rm x'", bash("at now", U("at now <<< 'rm x'"))),
  c("stdin", "bash s.sh", bash("bash s.sh")),

  // Wrappers that run a command: unwrapped where it can be seen, unanalysable where not.
  c("unwrap", "env -S'rm x'", edit("x"), bash("rm x", "env -S'rm x'", U("env -S'rm x'"))),
  c("unwrap", "trap -- 'rm x' EXIT", edit("x"), bash("rm x")),
  c("unwrap", "runuser -u u -- rm x", edit("x"), bash("rm x", "runuser -u u -- rm x")),
  c("unwrap", "script -qc 'rm x' /dev/null", edit("x"), bash("rm x")),
  c("unwrap", "strace -f -o /dev/null rm x", edit("x"), bash("rm x")),
  c("unwrap", "valgrind --leak-check=full rm x", edit("x"), bash("rm x")),
  c("unwrap", "unshare -r rm x", edit("x"), bash("rm x", "unshare -r rm x")),
  c("unwrap", "nsenter -t 1 -m rm x", edit("x"), bash("rm x", "nsenter -t 1 -m rm x")),
  c("unwrap", "systemd-run --user rm x", edit("x"), bash("rm x", "systemd-run --user rm x")),
  c("unwrap", "busybox rm x", edit("x"), bash("rm x")),
  c("unwrap", "mapfile -C 'rm x' arr < list.txt", edit("x"), bash("rm x", "mapfile -C 'rm x' arr", U("mapfile -C 'rm x' arr < list.txt"))),
  c("unwrap", "parallel rm ::: a b", bash("rm", "parallel rm ::: a b", U("parallel rm ::: a b"))),
  c("unwrap", "gdb -ex 'shell rm x'", bash("gdb -ex 'shell rm x'", U("gdb -ex 'shell rm x'"))),

  // Commands that look read-only but run or write things.
  c("hidden", "sed -n '1e rm x' a.txt", bash("sed -n '1e rm x' a.txt", U("sed -n '1e rm x' a.txt"))),
  c("hidden", "sed 's/a/b/w ../outside/f' a.txt", ext("/outside/*"), edit("../outside/f"), bash("sed 's/a/b/w ../outside/f' a.txt")),
  c("hidden", "sed '1r /etc/passwd' a.txt", ext("/etc/*"), bash("sed '1r /etc/passwd' a.txt")),
  c("hidden", "sed -n 's/new/old/p' a.txt", bash("sed -n 's/new/old/p' a.txt")),
  c("hidden", "sed -f s.sed a.txt", bash("sed -f s.sed a.txt", U("sed -f s.sed a.txt"))),
  c("hidden", "awk 'BEGIN{system(\"rm x\")}'", bash("awk 'BEGIN{system(\"rm x\")}'", U("awk 'BEGIN{system(\"rm x\")}'"))),
  c("hidden", "awk '{print $1}' a.txt", bash("awk '{print $1}' a.txt")),
  c("hidden", "python3 -c 'import os'", bash("python3 -c 'import os'", U("python3 -c 'import os'"))),
  c("hidden", "node -e 'process.exit()'", bash("node -e 'process.exit()'", U("node -e 'process.exit()'"))),
  c("hidden", "python3 tool.py", bash("python3 tool.py")),
  c("hidden", "git -c alias.x='!rm x' x", bash("git x", "git -c alias.x='!rm x' x", U("git -c alias.x='!rm x' x"))),
  c("hidden", "git -c user.name=x log", bash("git log", "git -c user.name=x log")),
  c("hidden", "git rebase --exec 'rm x' HEAD~2", bash("git rebase --exec 'rm x' HEAD~2", U("git rebase --exec 'rm x' HEAD~2"))),
  c("hidden", "npm test --script-shell=./evil.sh", bash("npm test --script-shell=./evil.sh", U("npm test --script-shell=./evil.sh"))),

  // Deleting is editing.
  c("delete", "rm -rf build", edit("build"), bash("rm -rf build")),
  c("delete", "rmdir build", edit("build"), bash("rmdir build")),
  c("delete", "unlink a.txt", edit("a.txt"), bash("unlink a.txt")),
  c("delete", "shred -u a.txt", edit("a.txt"), bash("shred -u a.txt")),
  c("delete", "find -delete", edit("."), bash("find -delete")),
  c("delete", "find src -name '*.o' -exec rm {} +", edit("src"), bash("find src -name '*.o' -exec rm {} +", "rm {}")),

  // Parse failures: the whole text is asked, never allowed by a rule.
  c("parse", "echo \"unterminated", bash("echo", U("echo \"unterminated"))),
  c("parse", "rm a.txt; (", edit("a.txt"), bash("rm a.txt", U("rm a.txt; ("))),
  c("parse", "git status $(", bash("git status", U("git status $("))),
  c("parse", "coproc x { ls; }", bash("coproc x { ls", "}", U("coproc x { ls; }")))
]

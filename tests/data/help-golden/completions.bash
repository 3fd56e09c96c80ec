exit 0
_pretouch() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="pretouch"
                ;;
            pretouch,calibrate)
                cmd="pretouch__subcmd__calibrate"
                ;;
            pretouch,campaign)
                cmd="pretouch__subcmd__campaign"
                ;;
            pretouch,check)
                cmd="pretouch__subcmd__check"
                ;;
            pretouch,env)
                cmd="pretouch__subcmd__env"
                ;;
            pretouch,generate)
                cmd="pretouch__subcmd__generate"
                ;;
            pretouch,help)
                cmd="pretouch__subcmd__help"
                ;;
            pretouch,jdks)
                cmd="pretouch__subcmd__jdks"
                ;;
            pretouch,report)
                cmd="pretouch__subcmd__report"
                ;;
            pretouch,run)
                cmd="pretouch__subcmd__run"
                ;;
            pretouch__subcmd__campaign,continue)
                cmd="pretouch__subcmd__campaign__subcmd__continue"
                ;;
            pretouch__subcmd__campaign,help)
                cmd="pretouch__subcmd__campaign__subcmd__help"
                ;;
            pretouch__subcmd__campaign,status)
                cmd="pretouch__subcmd__campaign__subcmd__status"
                ;;
            pretouch__subcmd__campaign,stop)
                cmd="pretouch__subcmd__campaign__subcmd__stop"
                ;;
            pretouch__subcmd__campaign__subcmd__help,continue)
                cmd="pretouch__subcmd__campaign__subcmd__help__subcmd__continue"
                ;;
            pretouch__subcmd__campaign__subcmd__help,help)
                cmd="pretouch__subcmd__campaign__subcmd__help__subcmd__help"
                ;;
            pretouch__subcmd__campaign__subcmd__help,status)
                cmd="pretouch__subcmd__campaign__subcmd__help__subcmd__status"
                ;;
            pretouch__subcmd__campaign__subcmd__help,stop)
                cmd="pretouch__subcmd__campaign__subcmd__help__subcmd__stop"
                ;;
            pretouch__subcmd__help,calibrate)
                cmd="pretouch__subcmd__help__subcmd__calibrate"
                ;;
            pretouch__subcmd__help,campaign)
                cmd="pretouch__subcmd__help__subcmd__campaign"
                ;;
            pretouch__subcmd__help,check)
                cmd="pretouch__subcmd__help__subcmd__check"
                ;;
            pretouch__subcmd__help,env)
                cmd="pretouch__subcmd__help__subcmd__env"
                ;;
            pretouch__subcmd__help,generate)
                cmd="pretouch__subcmd__help__subcmd__generate"
                ;;
            pretouch__subcmd__help,help)
                cmd="pretouch__subcmd__help__subcmd__help"
                ;;
            pretouch__subcmd__help,jdks)
                cmd="pretouch__subcmd__help__subcmd__jdks"
                ;;
            pretouch__subcmd__help,report)
                cmd="pretouch__subcmd__help__subcmd__report"
                ;;
            pretouch__subcmd__help,run)
                cmd="pretouch__subcmd__help__subcmd__run"
                ;;
            pretouch__subcmd__help__subcmd__campaign,continue)
                cmd="pretouch__subcmd__help__subcmd__campaign__subcmd__continue"
                ;;
            pretouch__subcmd__help__subcmd__campaign,status)
                cmd="pretouch__subcmd__help__subcmd__campaign__subcmd__status"
                ;;
            pretouch__subcmd__help__subcmd__campaign,stop)
                cmd="pretouch__subcmd__help__subcmd__campaign__subcmd__stop"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        pretouch)
            opts="-h -V --help --version run report check jdks env calibrate campaign generate help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__calibrate)
            opts="-h --threads --size --passes --rounds --comparable-memory --layout --label --results --no-save --cpus --variant --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --passes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rounds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --layout)
                    COMPREPLY=($(compgen -W "shared per-thread processes" -- "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --results)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --variant)
                    COMPREPLY=($(compgen -W "zap pft huge" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign)
            opts="-h --campaign-root --help status stop continue help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --campaign-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__continue)
            opts="-h --campaign-root --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --campaign-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__help)
            opts="status stop continue help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__help__subcmd__continue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__help__subcmd__stop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__status)
            opts="-h --campaign-root --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --campaign-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__campaign__subcmd__stop)
            opts="-h --campaign-root --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --campaign-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__check)
            opts="-h --baseline --labels --baseline-setting --setting --max-change --direction --estimator --exclude-outliers --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --baseline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --labels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline-setting)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --setting)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-change)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --direction)
                    COMPREPLY=($(compgen -W "increase both" -- "${cur}"))
                    return 0
                    ;;
                --estimator)
                    COMPREPLY=($(compgen -W "median trimmed-mean" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__env)
            opts="-h --json --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__generate)
            opts="-h --help man bash zsh fish"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help)
            opts="run report check jdks env calibrate campaign generate help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__calibrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__campaign)
            opts="status stop continue"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__campaign__subcmd__continue)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__campaign__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__campaign__subcmd__stop)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__env)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__generate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__jdks)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__report)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__jdks)
            opts="-h --dir --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__report)
            opts="-h --format --output --phases --labels --baseline --baseline-setting --exclude-outliers --plot --profile --flamegraph --profile-csv --calibrate --probe-csv --probe-svg --estimator --details --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "text markdown csv json html" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --labels)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline-setting)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --plot)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --flamegraph)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profile-csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --probe-csv)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --probe-svg)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --estimator)
                    COMPREPLY=($(compgen -W "median trimmed-mean" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pretouch__subcmd__run)
            opts="-h --gc --heap --jdk --rounds --warmup --label --results --agent --timeout --format --resume --force --fail-fast --dry-run --no-jvm-log --profile --profile-rounds --keep-perf-data --probe --probe-rounds --kernel --runs --vm-cpus --vm-memory --vm-boot-timeout --in-vm --boot --yes --calibrate-per-boot --campaign-root --comparable-memory --give-up-after --pass-java-options --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gc)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jdk)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rounds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warmup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --results)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --agent)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "text markdown csv json html" -- "${cur}"))
                    return 0
                    ;;
                --resume)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --profile-rounds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-perf-data)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --probe-rounds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kernel)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --runs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --vm-cpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --vm-memory)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --vm-boot-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --in-vm)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --boot)
                    COMPREPLY=($(compgen -W "vm kexec reboot" -- "${cur}"))
                    return 0
                    ;;
                --calibrate-per-boot)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --campaign-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --give-up-after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _pretouch -o nosort -o bashdefault -o default pretouch
else
    complete -F _pretouch -o bashdefault -o default pretouch
fi

# bash completion for tread(1): commands, options, and the values of
# --format, --to, --kind and --fields. Installed as
# $(bashcompletiondir)/tread; tests/cli/completion.sh checks it against
# `tread help COMMAND`.

_tread()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi

    local commands="stats cat convert split help"
    local common="--format --strict --max-event-bytes --max-depth --max-string-bytes
        --max-line-bytes --max-decompressed-bytes --max-interned-bytes --max-tracedat-meta-bytes -q --quiet
        --no-progress --single-thread -h --help --version"
    local kinds="unknown slice_begin slice_end complete instant counter async_begin
        async_step async_end flow_begin flow_step flow_end sample object_new
        object_snapshot object_delete metadata context_switch wakeup log memory_dump
        clock_sync context_enter context_leave id_link blob stack_frame"
    local fields="kind format ts_ns dur_ns end_ns pid tid name cat id ph tts_ns tdur_ns
        cpu series value meta meta_str args"

    # the command: the first word that is not an option (or an option's value)
    local cmd="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --format|--max-*|--top|--to|-j|--jobs|--kind|--name|--cat|--pid|--tid|--start|--end|--limit|--fields)
                ((i++)) ;;
            -*) ;;
            *) cmd=${words[i]}; break ;;
        esac
    done

    case $prev in
        --format)
            COMPREPLY=($(compgen -W "json perfetto fxt ftrace systrace cpuprofile tracedat" -- "$cur"))
            return ;;
        --to)
            COMPREPLY=($(compgen -W "json perfetto" -- "$cur"))
            return ;;
        --kind)
            # a comma-separated list: complete the last item
            local done_part=${cur%"${cur##*,}"}
            COMPREPLY=($(compgen -P "$done_part" -W "$kinds" -- "${cur##*,}"))
            return ;;
        --fields)
            local done_part=${cur%"${cur##*,}"}
            COMPREPLY=($(compgen -P "$done_part" -W "$fields" -- "${cur##*,}"))
            return ;;
        --max-*|--top|-j|--jobs|--name|--cat|--pid|--tid|--start|--end|--limit)
            return ;;
    esac

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "$common" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    local own=""
    case $cmd in
        stats) own="--json --top -j --jobs" ;;
        cat) own="--kind --name --cat --pid --tid --start --end --limit --fields --packets" ;;
        convert) own="--to --max-interned --max-frame-bytes" ;;
        split) own="--max-bytes --max-total-bytes --to --max-interned --max-frame-bytes" ;;
        help)
            COMPREPLY=($(compgen -W "stats cat convert split" -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$own $common" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
    fi
}
complete -F _tread tread

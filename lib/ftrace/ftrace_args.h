/* The TREAD_ARGS_FTRACE codec (ftrace_args.c). */
#ifndef TREAD_FTRACE_ARGS_H
#define TREAD_FTRACE_ARGS_H

/* tread_args.ctx for a function tracer line (its caller as "parent");
 * NULL ctx: an event payload. */
extern const int tread__ftrace_ctx_function;

/* tread_args.ctx for a payload in trace-cmd report's own shape
 * (ftrace_report.h): the iterator gives the kernel's field names
 * (prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid,
 * next_prio; comm, pid, prio, success, target_cpu), so both forms read the
 * same. */
extern const int tread__ftrace_ctx_report_switch;
extern const int tread__ftrace_ctx_report_wakeup;

#endif

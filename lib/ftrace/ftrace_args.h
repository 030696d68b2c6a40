/* The TREAD_ARGS_FTRACE codec (ftrace_args.c). */
#ifndef TREAD_FTRACE_ARGS_H
#define TREAD_FTRACE_ARGS_H

/* tread_args.ctx for a function tracer line (its caller as "parent");
 * NULL ctx: an event payload. */
extern const int tread__ftrace_ctx_function;

#endif

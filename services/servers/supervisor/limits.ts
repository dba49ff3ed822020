/** The longest console command: bigger writes to a FIFO may interleave with another writer's (PIPE_BUF is 4096). */
export const MAX_COMMAND_BYTES = 4_000

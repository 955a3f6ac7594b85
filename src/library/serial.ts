/**
 * Runs tasks one at a time, in the order they were given (kysely's connection mutex): the Library
 * sends its writes through one when the store cannot take overlapping writers. A task that fails
 * fails only its own caller; the next one still runs.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

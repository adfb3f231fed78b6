/** A node on the path from the root down to the one being walked, and the children it has left to follow. */
interface Frame<N> {
  key: string;
  node: N;
  children: string[];
  next: number;
}

/** What the depth-first walk asks of its caller. */
export interface Visitor<N> {
  /** Visits one id (the root, or a child of `parentOf`), once however often it is named: its node and children. */
  visit(id: string, parentOf: N | undefined, depth: number): Promise<{ node: N; children: string[] }>;
  /** `child` of `node` closes a cycle; `cycle` is the path from the repeated id back to it, shortened when long. */
  cycle(node: N, child: string, cycle: string): void;
}

/**
 * Depth first from `root`, ids compared case-insensitively, each visited once, with an explicit
 * stack, so that a deep chain cannot overflow the call stack. A child already on the path is
 * reported as a cycle, not followed.
 */
export async function depthFirst<N>(root: string, visitor: Visitor<N>): Promise<void> {
  const path: Array<Frame<N>> = [];
  const onPath = new Map<string, number>();
  const visited = new Set<string>();
  const enter = async (id: string, parent: N | undefined) => {
    const key = id.toLowerCase();
    visited.add(key);
    const { node, children } = await visitor.visit(id, parent, path.length);
    onPath.set(key, path.length);
    path.push({ key, node, children, next: 0 });
  };
  const describeCycle = (from: number, closing: string) => {
    const keys = (frames: Array<Frame<N>>) => frames.map((f) => f.key);
    const length = path.length - from;
    const shown =
      length <= 6
        ? keys(path.slice(from))
        : [...keys(path.slice(from, from + 3)), `… ${length - 5} more …`, ...keys(path.slice(-2))];
    return [...shown, closing].join(' → ');
  };

  await enter(root, undefined);
  while (path.length > 0) {
    const frame = path[path.length - 1]!;
    if (frame.next === frame.children.length) {
      path.pop();
      onPath.delete(frame.key);
      continue;
    }
    const child = frame.children[frame.next++]!;
    const childKey = child.toLowerCase();
    const cycleAt = onPath.get(childKey);
    if (cycleAt !== undefined) visitor.cycle(frame.node, child, describeCycle(cycleAt, childKey));
    else if (!visited.has(childKey)) await enter(child, frame.node);
  }
}

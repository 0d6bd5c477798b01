//! Small graph helpers: strongly connected components without recursion, so
//! a hostile or deep dependency graph can neither hang nor overflow the stack.

/// Strongly connected components of a directed graph given as adjacency
/// lists (Tarjan's algorithm, iterative). Returns only the components that
/// form a cycle: two or more nodes, or one node with an edge to itself.
/// Each component is sorted; components are ordered by their first node.
pub fn cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let mut out = Vec::new();
    // Work stack of (node, position in its adjacency list).
    let mut work: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        work.push((start, 0));
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == UNSEEN {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            let edges = &adj[v];
            if let Some(&w) = edges.get(*pos) {
                *pos += 1;
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            // All edges of v done.
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                let is_cycle = comp.len() > 1 || adj[v].contains(&v);
                if is_cycle {
                    comp.sort_unstable();
                    out.push(comp);
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles_only() {
        // 0 -> 1 -> 2 -> 0, 3 -> 3, 4 -> 0, 5 isolated, bad edge 99 ignored.
        let adj = vec![vec![1], vec![2], vec![0, 99], vec![3], vec![0], vec![]];
        assert_eq!(cycles(&adj), vec![vec![0, 1, 2], vec![3]]);
        assert!(cycles(&[vec![1], vec![]]).is_empty());
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000;
        let mut adj: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
        adj[n - 1] = vec![0];
        let c = cycles(&adj);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].len(), n);
    }
}

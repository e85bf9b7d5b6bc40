"""MATLAB: the text of ``solve_sudoku.m``, the script :mod:`formats.matlab` writes beside ``model.mat``.

It reads ``model.mat`` if present, else the CSV export, solves with ``intlinprog`` (MATLAB) or
``glpk`` (GNU Octave), expands a ``reduce`` solution, decodes ``x`` with the ``reshape``/``permute``
lines of the convention, prints the grid and writes ``sudoku.csv`` (:mod:`formats.matlab` has the
whole story of the files).
"""
from __future__ import annotations

import numpy as np

from pipeline.core.build import Model
from pipeline.core.puzzle import COMPACT_DIGITS

__all__ = ["KEPT_NAME", "MAT_NAME", "SCRIPT_NAME", "render_script"]

MAT_NAME = "model.mat"
SCRIPT_NAME = "solve_sudoku.m"
KEPT_NAME = "kept_columns.csv"


def _decode_lines(conv) -> list[str]:
    """MATLAB lines turning the full vector ``x_full`` into ``X(r,c,d)`` for ``conv``.

    MATLAB's ``reshape`` fills its first dimension fastest, so order F reads the scheme's
    shape as is and order C reads it reversed; block tuples then regroup (p,I) into r and
    (q,J) into c, p and q fastest because r = (I-1)*h + p and c = (J-1)*w + q.
    """
    if conv.scheme == "ijk":
        if conv.order == "F":
            return ["% ijk, order F (MATLAB order): position i + N*(j-1) + N^2*(k-1)",
                    "X = reshape(x_full, N, N, N);          % X(i,j,k) = X(r,c,d)"]
        return ["% ijk, order C (NumPy order): k varies fastest, so MATLAB's reshape sees (k,j,i)",
                "X = reshape(x_full, N, N, N);          % X(k,j,i)",
                "X = permute(X, [3 2 1]);               % X(i,j,k) = X(r,c,d)"]
    if conv.order == "F":
        return ["% block, order F: X(I,J,p,q,n) with I fastest (MATLAB order)",
                "X = reshape(x_full, N/h, N/w, h, w, N); % X(I,J,p,q,n)",
                "X = permute(X, [3 1 4 2 5]);           % X(p,I,q,J,n)",
                "X = reshape(X, N, N, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]
    return ["% block, order C (NumPy order): n varies fastest, so MATLAB's reshape sees (n,q,p,J,I)",
            "X = reshape(x_full, N, w, h, N/w, N/h); % X(n,q,p,J,I)",
            "X = permute(X, [3 5 2 4 1]);           % X(p,I,q,J,n)",
            "X = reshape(X, N, N, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]


def _clue_block(model) -> list[str]:
    r, c, d = model.puzzle.clues()
    pos = model.convention.position(r, c, d) + 1
    rows = np.column_stack([r + 1, c + 1, d + 1, pos])
    if rows.shape[0] == 0:
        return ["clues = zeros(0, 4);"]
    body = [" ".join(str(v) for v in row) + ";" for row in rows.tolist()]
    # several clues per line keep the script short for big grids
    lines = ["clues = [ ..."]
    for k in range(0, len(body), 6):
        lines.append("  " + "  ".join(body[k:k + 6]) + " ...")
    lines.append("];")
    return lines


def _unit_lines(puzzle) -> list[str]:
    """MATLAB lines setting ``units`` (N x N ids whose borders are drawn thick) and ``diagonals``."""
    lines = [f"diagonals = {'true' if puzzle.has_diagonals else 'false'};   % Sudoku-X: both long diagonals are units"]
    if puzzle.regions is not None:
        lines.append("% jigsaw regions, one 0-based id per cell (row by row): their borders are drawn thick")
        body = [" ".join(str(v) for v in row) + ";" for row in puzzle.regions.tolist()]
        lines += ["units = [ ...", *[f"  {row} ..." for row in body], "];"]
    elif puzzle.has_boxes:
        lines += ["[unit_r, unit_c] = ndgrid(0:N-1, 0:N-1);",
                  "units = floor(unit_r / h) * (N / w) + floor(unit_c / w);   % box id of each cell"]
    else:
        lines.append("units = zeros(N);   % no boxes (Latin square): only the frame is thick")
    return lines


def _figure_lines(model) -> list[str]:
    """The drawing section of ``solve_sudoku.m``: the solved grid as a figure, the way seed 001
    draws it (thick box lines, clues in bold), only where figures can be shown or when asked
    to save one; any failure there is one printed line, never an error of the script."""
    p = model.puzzle
    return [
        "",
        "% -- draw the grid in a figure (thick box/region lines, clues bold) -----------------------",
        "% Only where a figure can be shown: MATLAB with figure windows (not -nodisplay/-batch);",
        "% GNU Octave with DISPLAY set and a windowing toolkit (qt/fltk; Octave's gnuplot toolkit",
        "% prints text art on a dead display, so it only saves files). sudoku_draw = false skips it;",
        "% sudoku_figure = 'grid.png' also saves the figure (works headless, figure invisible).",
        "if exist('sudoku_draw', 'var') && ~isempty(sudoku_draw)",
        "  want_figure = logical(sudoku_draw);",
        "else",
        "  want_figure = true;",
        "end",
        "if exist('sudoku_figure', 'var') && ~isempty(sudoku_figure)",
        "  figure_file = sudoku_figure;",
        "else",
        "  figure_file = '';",
        "end",
        "can_show = false;",
        "try",
        "  if exist('OCTAVE_VERSION', 'builtin')",
        "    can_show = ~isempty(getenv('DISPLAY')) && any(strcmp(graphics_toolkit(), {'qt', 'fltk'}));",
        "  else",
        "    can_show = usejava('desktop') || feature('ShowFigureWindows');",
        "  end",
        "catch",
        "  can_show = false;",
        "end",
        "if want_figure && (can_show || ~isempty(figure_file))",
        "  try",
        *["    " + line for line in _unit_lines(p)],
        "    if can_show, visible = 'on'; else, visible = 'off'; end",
        "    if exist('OCTAVE_VERSION', 'builtin')   % saving through gnuplot is fine: no 'discouraged' notice",
        "      warning('off', 'Octave:gnuplot-graphics');",
        "    end",
        f"    fig = figure('Visible', visible, 'Color', 'w', 'Name', 'Sudoku {p.n}x{p.n} {p.variant}', 'NumberTitle', 'off');",
        "    ax = axes('Parent', fig, 'Position', [0.05 0.05 0.9 0.9]);",
        "    hold(ax, 'on');",
        "    if diagonals   % shade the two long diagonals",
        "      k = (1:N)';",
        "      cells = [k k; k N + 1 - k];   % [row col]",
        "      patch('Parent', ax, 'XData', [cells(:, 2) - 1, cells(:, 2), cells(:, 2), cells(:, 2) - 1]', ...",
        "            'YData', [cells(:, 1) - 1, cells(:, 1) - 1, cells(:, 1), cells(:, 1)]', ...",
        "            'FaceColor', [0.9 0.9 0.9], 'EdgeColor', 'none');",
        "    end",
        "    k = 0:N;   % thin lines around every cell, NaN-separated in one line object",
        "    thin_x = [k; k; nan(1, N + 1)]; thin_y = [zeros(1, N + 1); N * ones(1, N + 1); nan(1, N + 1)];",
        "    plot(ax, [thin_x(:); thin_y(:)], [thin_y(:); thin_x(:)], '-', 'Color', [0.6 0.6 0.6], 'LineWidth', 0.5);",
        "    % thick lines where the unit (box or region) changes, and the frame",
        "    [vr, vc] = find(units(:, 1:end-1) ~= units(:, 2:end));   % border right of cell (vr, vc)",
        "    [hr, hc] = find(units(1:end-1, :) ~= units(2:end, :));   % border below cell (hr, hc)",
        "    vr = vr(:); vc = vc(:); hr = hr(:); hc = hc(:);",
        "    thick_x = [[vc vc nan(size(vc))]', [hc - 1, hc, nan(size(hc))]'];   % 3 x segments",
        "    thick_y = [[vr - 1, vr, nan(size(vr))]', [hr hr nan(size(hr))]'];",
        "    plot(ax, [thick_x(:); 0; N; N; 0; 0], [thick_y(:); 0; 0; N; N; 0], 'k-', 'LineWidth', 2.5);",
        "    is_clue = false(N);",
        "    if ~isempty(clues), is_clue(sub2ind([N N], clues(:, 1), clues(:, 2))) = true; end",
        "    font_size = max(5, round(160 / N));",
        "    [cr, cc] = find(is_clue);",
        "    [fr, fc] = find(~is_clue);",
        "    label = @(r, c) arrayfun(@(d) sprintf('%d', d), sudoku(sub2ind([N N], r, c)), 'UniformOutput', false);",
        "    if ~isempty(cr)   % clues in bold black, filled-in digits in blue",
        "      text(cc - 0.5, cr - 0.5, label(cr, cc), 'Parent', ax, 'FontWeight', 'bold', 'FontSize', font_size, ...",
        "           'HorizontalAlignment', 'center', 'VerticalAlignment', 'middle', 'Color', [0 0 0]);",
        "    end",
        "    if ~isempty(fr)",
        "      text(fc - 0.5, fr - 0.5, label(fr, fc), 'Parent', ax, 'FontSize', font_size, ...",
        "           'HorizontalAlignment', 'center', 'VerticalAlignment', 'middle', 'Color', [0.1 0.35 0.75]);",
        "    end",
        "    set(ax, 'YDir', 'reverse');",
        "    axis(ax, [0 N 0 N]); axis(ax, 'equal'); axis(ax, 'off');",
        "    hold(ax, 'off');",
        "    if ~isempty(figure_file)",
        "      print(fig, figure_file, '-dpng');",
        "      fprintf('Wrote %s\\n', figure_file);",
        "    end",
        "    if ~can_show, close(fig); end",
        "  catch err",
        "    fprintf('No figure drawn: %s\\n', err.message);",
        "  end",
        "end",
    ]


def render_script(model: Model) -> str:
    """The text of ``solve_sudoku.m`` for ``model`` (its convention, encoding and clues)."""
    conv = model.convention
    p = model.puzzle
    n = conv.n
    reduce = model.is_reduced
    ineq = model.n_ineq > 0                 # the rules' <= rows (Aineq, bineq)
    canvas = p.layout is not None           # a gattai layout: the columns are the present cells
    mapped = reduce or canvas               # the solver columns are not all positions: a map
    # a rectangle, or more values than the side: the variables run over R x C x V as on a canvas
    wide = not canvas and (p.rows != p.cols or p.n_values != n)
    on_canvas = canvas or wide
    alphabet = np.array(list("." + COMPACT_DIGITS)) if n <= len(COMPACT_DIGITS) else None
    puzzle_lines = ["".join(alphabet[row]) if alphabet is not None else " ".join(map(str, row))
                    for row in p.grid.tolist()]
    head = [
        "% solve_sudoku.m -- generated by sudoku-pipeline; do not edit by hand (re-export instead).",
        f"% Puzzle: {n}x{n} {p.variant}, boxes {p.h}x{p.w}, {p.n_clues} clues:",
        *[f"%   {line}" for line in puzzle_lines],
        f"% Convention: scheme {conv.scheme}, order {conv.order}; clues as {model.clue_encoding};",
        (f"% model {model.n_rows} rows x {model.n_cols} columns, {model.nnz} nonzeros (Aeq), and {model.n_ineq} <= rows, "
         f"{model.ineq_nnz} nonzeros (Aineq)." if ineq else
         f"% model {model.n_rows} rows x {model.n_cols} columns, {model.nnz} nonzeros."),
        "%",
        ("% Solves Aeq*x = beq, Aineq*x <= bineq, lb <= x <= ub, x integer, with intlinprog (MATLAB,"
         if ineq else "% Solves Aeq*x = beq, lb <= x <= ub, x integer, with intlinprog (MATLAB, Optimization"),
        *(["% Optimization Toolbox) or glpk (GNU Octave), decodes x into the grid, prints it and writes",
            "% sudoku.csv (integers, comma-separated, no header; 0 outside the layout's grids)."] if ineq or canvas else
          ["% Toolbox) or glpk (GNU Octave), decodes x into the grid, prints it and writes sudoku.csv",
           "% (N x N integers, comma-separated, no header)."]),
        "%",
        "% Run from any folder: run('/path/to/solve_sudoku.m'). Optional variables, set before:",
        "%   sudoku_dir      folder with model.mat or the CSV files (default: this script's folder)",
        "%   sudoku_use_csv  true: ignore model.mat and read Aeq_ijv.csv, beq.csv, lb.csv, ub.csv, f.csv"
        + (" (and Aineq_ijv.csv, bineq.csv)" if ineq else ""),
        "%   sudoku_out      path of the solution CSV (default: <sudoku_dir>/sudoku.csv)",
        "%   sudoku_time_limit  seconds the solver may take (glpk tmlim / intlinprog MaxTime; default: none)",
        "%   sudoku_draw     false: no figure (default: draw the solved grid where figures can be shown)",
        "%   sudoku_figure   also save the figure to this .png file (works headless too; run() changes into",
        "%                   this script's folder, so give a full path: fullfile(pwd, 'grid.png'))",
        "",
        f"N = {n}; h = {p.h}; w = {p.w};   % grid side / digits, box rows, box columns",
        *([f"R = {p.rows}; C = {p.cols};   % the canvas of the {getattr(p.layout, 'name', '')} layout: R x C cells, some outside every grid",
           "% cells that belong to a grid (1) or lie outside every grid (0), row by row",
           "present = [ ...", *[f"  '{''.join('1' if v else '0' for v in row)}'; ..." for row in
                                 np.asarray(p.present).reshape(p.rows, p.cols).tolist()],
           "] == '1';"] if canvas else []),
        *([f"R = {p.rows}; C = {p.cols}; N = {p.n_values};   % R x C cells, N digits (sudoku.csv holds 1..N: "
           "digit k stands for the k-th value)", "present = true(R, C);"] if wide else []),
        f"has_boxes = {'true' if p.has_boxes else 'false'};",
        "% Clues [row col digit position]; position = 1-based index of x[row,col,digit] in the full",
        f"% N^3 vector of this convention ({conv.scheme}/{conv.order}). Baked in so that the CSV-only",
        "% route (no meta) can still restore the variables that 'reduce' removed.",
        *_clue_block(model),
        "",
        "% -- where the files are (the script's own folder unless sudoku_dir says otherwise) --------",
        "if exist('sudoku_dir', 'var') && ~isempty(sudoku_dir)",
        "  model_dir = sudoku_dir;",
        "else",
        "  model_dir = fileparts(mfilename('fullpath'));",
        "  if isempty(model_dir), model_dir = pwd; end",
        "end",
        "if exist('sudoku_out', 'var') && ~isempty(sudoku_out)",
        "  out_file = sudoku_out;",
        "else",
        "  out_file = fullfile(model_dir, 'sudoku.csv');",
        "end",
        "mat_file = fullfile(model_dir, 'model.mat');",
        "read_csv = exist('sudoku_use_csv', 'var') && sudoku_use_csv;",
        "if exist('sudoku_time_limit', 'var') && ~isempty(sudoku_time_limit)",
        "  time_limit = sudoku_time_limit;   % seconds",
        "else",
        "  time_limit = [];",
        "end",
        "",
        "% -- the model --------------------------------------------------------------------------",
        "if ~read_csv && exist(mat_file, 'file')",
        "  S = load(mat_file);",
        "  Aeq = S.Aeq; beq = S.beq; f = S.f; lb = S.lb; ub = S.ub; intcon = S.intcon;",
    ]
    if ineq:
        head += ["  Aineq = S.Aineq; bineq = S.bineq;   % the rules' <= rows"]
    if mapped:
        head += ["  kept = S.meta.kept_columns(:);   % 1-based full positions of the solver columns"]
    head += [
        "  fprintf('Read %s\\n', mat_file);",
        "else",
        "  ijv = @(t) sparse(t(1:end-1, 1), t(1:end-1, 2), t(1:end-1, 3), t(end, 1), t(end, 2));  % last row: m,n,0",
        "  Aeq = ijv(load(fullfile(model_dir, 'Aeq_ijv.csv')));",
        *(["  beq = load(fullfile(model_dir, 'beq.csv'));"] if model.n_rows else
          ["  beq = zeros(0, 1);   % no equality rows: beq.csv is empty, which load refuses"]),
        *([f"  {v} = load(fullfile(model_dir, '{v}.csv'));" for v in ("lb", "ub", "f")] if model.n_cols else
          ["  lb = zeros(0, 1); ub = lb; f = lb;   % every cell given, reduced: no columns, empty files"]),
        "  intcon = (1:size(Aeq, 2))';       % every variable is binary",
    ]
    if ineq:
        head += ["  Aineq = ijv(load(fullfile(model_dir, 'Aineq_ijv.csv')));   % the rules' <= rows",
                 "  bineq = load(fullfile(model_dir, 'bineq.csv'));"]
    if mapped:
        head += [f"  kept = load(fullfile(model_dir, '{KEPT_NAME}'));   % 1-based full positions" if model.n_cols
                 else "  kept = zeros(0, 1);   % no columns kept"]
    head += [
        "  fprintf('Read the CSV files in %s\\n', model_dir);",
        "end",
        "beq = beq(:); f = f(:); lb = lb(:); ub = ub(:);",
        "[m, n] = size(Aeq);",
        *(["bineq = bineq(:);", "mi = size(Aineq, 1);   % <= rows"] if ineq else []),
        "",
        "% -- solve ---------------------------------------------------------------------------------",
        "if n == 0   % every cell given, the clues reduced: nothing to solve (glpk and intlinprog refuse it)",
        "  x = zeros(0, 1);", "elseif exist('OCTAVE_VERSION', 'builtin')",
        "  % GNU Octave has no intlinprog; glpk: 'S' = equality rows, 'I' = integer columns, 1 = minimise",
        "  glpk_param = struct('msglev', 1);  % errors only",
        "  if ~isempty(time_limit)",
        "    glpk_param.tmlim = max(1, round(1000 * time_limit));  % milliseconds",
        "  end",
        *(["  % the <= rows follow the equalities: ctype 'U' (upper bound) for each",
            "  [x, fmin, errnum, extra] = glpk(f, [Aeq; Aineq], [beq; bineq], lb, ub, [repmat('S', m, 1); repmat('U', mi, 1)], ...",
            "                                 repmat('I', n, 1), 1, glpk_param);"] if ineq else
          ["  [x, fmin, errnum, extra] = glpk(f, Aeq, beq, lb, ub, repmat('S', m, 1), repmat('I', n, 1), 1, glpk_param);"]),
        "  % status 5 = optimal, 2 = feasible: any feasible point is a solution (zero objective).",
        "  % No solution: error 10 or status 3/4 = infeasible, error 9 = time limit (help glpk)",
        "  if errnum == 9",
        "    % in words, keeping the 'glpk found no solution (error E, status S)' that callers parse",
        "    error('solve_sudoku:timelimit', 'glpk found no solution (error 9, status %d): it stopped on the time limit of %g s', extra.status, time_limit);",
        "  end",
        "  if errnum == 10 || any(extra.status == [3 4])   % said in words too: a user reads this line",
        "    error('solve_sudoku:infeasible', 'glpk found no solution (error %d, status %d): the puzzle has no solution (infeasible)', errnum, extra.status);",
        "  end",
        "  if errnum ~= 0 || ~any(extra.status == [2 5])",
        "    error('solve_sudoku:nosolution', 'glpk found no solution (error %d, status %d)', errnum, extra.status);",
        "  end",
        "else",
        "  opts = optimoptions('intlinprog', 'Display', 'off');",
        "  if ~isempty(time_limit)",
        "    opts = optimoptions(opts, 'MaxTime', time_limit);",
        "  end",
        "  % the structure mpsread returns (model.mat holds it as S.problem); options added here",
        ("  problem = struct('f', f, 'intcon', intcon, 'Aineq', Aineq, 'bineq', bineq, 'Aeq', Aeq, 'beq', beq, ..."
         if ineq else
         "  problem = struct('f', f, 'intcon', intcon, 'Aineq', [], 'bineq', [], 'Aeq', Aeq, 'beq', beq, ..."),
        "                   'lb', lb, 'ub', ub, 'solver', 'intlinprog', 'options', opts);",
        "  [x, fmin, exitflag] = intlinprog(problem);",
        "  if exitflag == -2   % no feasible point",
        "    error('solve_sudoku:infeasible', 'intlinprog found no solution (exitflag -2): the puzzle has no solution (infeasible)');",
        "  end",
        "  if isempty(x) || exitflag <= 0",
        "    error('solve_sudoku:nosolution', 'intlinprog found no solution (exitflag %d)', exitflag);",
        "  end",
        "end",
        "x = round(x(:));",
        "",
        "% -- back to all N^3 variables -------------------------------------------------------------",
    ]
    if reduce:
        head += [
            "% 'reduce' dropped the variables fixed by the clues: put the kept ones back at their full",
            "% positions, the rest stay 0 except the clue variables, which are 1.",
            "x_full = zeros(R * C * N, 1);" if on_canvas else "x_full = zeros(N^3, 1);",
            "x_full(kept) = x;",
            "x_full(clues(:, 4)) = 1;",
        ]
    elif canvas:
        head += [
            "% the solver columns are the variables of the present cells: put them back at their",
            "% positions on the canvas (cells outside every grid have no variables: 0)",
            "x_full = zeros(R * C * N, 1);",
            "x_full(kept) = x;",
        ]
    else:
        head += ["x_full = x;   % the solver columns are all N^3 variables, clues included"]
    if model.n_aux:   # auxiliary columns come after the cell block (docs/conventions.md): not cells
        head += [f"x_full = x_full(1:{'R * C * N' if on_canvas else 'N^3'});   % the {model.n_aux} auxiliary "
                 "columns after the cell variables are the rules' own, not cells"]
    head += [
        "",
        "% -- decode: X(r,c,d) = 1 iff cell (r,c) holds digit d --------------------------------------",
        *(_canvas_decode_lines(conv) if on_canvas else _decode_lines(conv)),
        *(["digit_count = sum(X, 3);",
           "if any(digit_count(present) ~= 1) || any(digit_count(~present) ~= 0)"] if on_canvas else
          ["if any(any(sum(X, 3) ~= 1))"]),
        "  error('solve_sudoku:decode', 'a cell does not hold exactly one digit');",
        "end",
        "sudoku = sum(bsxfun(@times, X, reshape(1:N, 1, 1, N)), 3);   % sudoku(r,c) = digit"
        + ("; 0 outside the grids" if canvas else ""),
        "if ~isempty(clues)",
        "  clue_ok = sudoku(sub2ind([R C], clues(:, 1), clues(:, 2))) == clues(:, 3);" if on_canvas else
        "  clue_ok = sudoku(sub2ind([N N], clues(:, 1), clues(:, 2))) == clues(:, 3);",
        "  if ~all(clue_ok)",
        "    error('solve_sudoku:decode', 'decoded grid contradicts a clue: wrong convention?');",
        "  end",
        "end",
        "",
        "% -- print and write -----------------------------------------------------------------------",
        "cell_width = numel(sprintf('%d', N));",
        *(_canvas_print_lines() if on_canvas else _grid_print_lines()),
        "if exist('writematrix')   % MATLAB R2019a+",
        "  writematrix(sudoku, out_file);",
        "else                      % GNU Octave and older MATLAB",
        "  dlmwrite(out_file, sudoku, ',');",
        "end",
        "fprintf('Wrote %s\\n', out_file);",
        # the figure draws one N x N grid (boxes, regions, diagonals); a layout's canvas is printed only
        *(_figure_lines(model) if not on_canvas else []),
    ]
    return "\n".join(head) + "\n"


def _grid_print_lines() -> list[str]:
    """The N x N grid printed with box separators."""
    return [
        "for r = 1:N",
        "  if has_boxes && r > 1 && mod(r - 1, h) == 0",
        "    disp(repmat('-', 1, N * (cell_width + 1) + 2 * (N / w - 1)));",
        "  end",
        "  text_line = '';",
        "  for c = 1:N",
        "    if has_boxes && c > 1 && mod(c - 1, w) == 0, text_line = [text_line ' |']; end",
        "    text_line = [text_line sprintf(' %*d', cell_width, sudoku(r, c))];",
        "  end",
        "  disp(text_line);",
        "end",
    ]


def _canvas_print_lines() -> list[str]:
    """A layout's canvas printed row by row, '.' outside every grid."""
    return [
        "for r = 1:R",
        "  text_line = '';",
        "  for c = 1:C",
        "    if present(r, c)",
        "      text_line = [text_line sprintf(' %*d', cell_width, sudoku(r, c))];",
        "    else",
        "      text_line = [text_line sprintf(' %*s', cell_width, '.')];",
        "    end",
        "  end",
        "  disp(text_line);",
        "end",
    ]


def _canvas_decode_lines(conv) -> list[str]:
    """MATLAB lines turning ``x_full`` into ``X(r,c,d)`` on an R x C canvas of ``N`` digits: a
    layout's or a rectangle's (ijk only), or a square grid of more values than its side, whose
    block tuples run over ``(R/h, C/w, h, w, N)`` (docs/conventions.md, "Value sets")."""
    if conv.scheme == "block":
        if conv.order == "F":
            return ["% block, order F: X(I,J,p,q,n) with I fastest (MATLAB order), n over the N values",
                    "X = reshape(x_full, R/h, C/w, h, w, N); % X(I,J,p,q,n)",
                    "X = permute(X, [3 1 4 2 5]);           % X(p,I,q,J,n)",
                    "X = reshape(X, R, C, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]
        return ["% block, order C (NumPy order): n varies fastest, so MATLAB's reshape sees (n,q,p,J,I)",
                "X = reshape(x_full, N, w, h, C/w, R/h); % X(n,q,p,J,I)",
                "X = permute(X, [3 5 2 4 1]);           % X(p,I,q,J,n)",
                "X = reshape(X, R, C, N);               % r = (I-1)*h + p, c = (J-1)*w + q: X(r,c,n)"]
    if conv.order == "F":
        return ["% ijk on the canvas, order F: position r + R*(c-1) + R*C*(d-1)",
                "X = reshape(x_full, R, C, N);          % X(r,c,d)"]
    return ["% ijk on the canvas, order C (NumPy order): d varies fastest, so MATLAB's reshape sees (d,c,r)",
            "X = reshape(x_full, N, C, R);          % X(d,c,r)",
            "X = permute(X, [3 2 1]);               % X(r,c,d)"]

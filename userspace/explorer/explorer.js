/*
 * gup-lab's results explorer (explorer/page.h): shows the JSON of the page's
 * #data element, which gupctl wrote.  Every verdict and every word comes
 * from there (userspace/matrix/report.c computes the symbols, the words and
 * the console slices of the matrix; explorer/table.h carries the tables of
 * the other jobs and of a diff); this script only lays them out, filters
 * and shows a cell's details.  docs/results.md, "The explorer", names the
 * fields.  Two views: the matrix's grid, and the table (D.view "table").
 */
(function () {
	'use strict';
	var D = JSON.parse(document.getElementById('data').textContent);

	/* el('td', {class: 'x'}, child, 'text', ...): a new element */
	function el(tag, attrs) {
		var e = document.createElement(tag), i, k, c;

		for (k in attrs || {})
			e.setAttribute(k, attrs[k]);
		for (i = 2; i < arguments.length; i++) {
			c = arguments[i];
			if (c === null || c === undefined)
				continue;
			e.appendChild(typeof c === 'string' || typeof c === 'number' ?
				document.createTextNode(String(c)) : c);
		}
		return e;
	}

	/* the page's source: results directory, commit, date */
	function source() {
		return el('p', { class: 'muted', id: 'source' },
			'results: ', el('code', {}, D.results || '(files)'),
			D.commit ? ' · commit ' : null, D.commit ? el('code', {}, D.commit) : null,
			D.date ? ' · ' + D.date : null);
	}

	/* a console slice (lines) into box, or why there is none */
	function consoleSlice(box, lines, first, last) {
		if (lines && lines.length) {
			if (first)
				box.appendChild(el('p', { class: 'muted' },
					'console lines ' + first + '-' + last));
			box.appendChild(el('pre', { class: 'console', id: 'detail-console' },
				lines.join('\n')));
		} else {
			box.appendChild(el('p', { id: 'detail-console' },
				'No slice of the console for this cell (it did not run, or its boot left none).'));
		}
	}

	/* kernel reports attributed to a cell, into box */
	function reportList(box, reports) {
		box.appendChild(el('h2', {}, 'Kernel reports attributed to it: ' + reports.length));
		if (!reports.length)
			return;
		var ul = el('ul', { id: 'detail-reports' });

		reports.forEach(function (r) {
			ul.appendChild(el('li', {}, el('code', {}, r.title),
				r.expected ? ' (expected)' : ' (NOT expected)',
				r.note ? ': ' + r.note : ''));
		});
		box.appendChild(ul);
	}

	/*
	 * The table view: a row per key (interface, backing, state...), a
	 * column per flavour (or per side of a diff); a cell is its text, "!"
	 * before it and outlined when it is not as expected.
	 */
	function tableView() {
		var T = {}, body, detail, counts;
		var nk = D.keys.length, nc = D.columns.length;

		document.title = document.title || D.title;
		document.body.appendChild(el('h1', {}, D.title));
		document.body.appendChild(source());
		if (D.counts)
			document.body.appendChild(el('p', { id: 'diff-counts' }, D.counts));

		var sum = el('table', { id: 'summary' });
		sum.appendChild(el('tr', {}, el('th', {}, D.column_title || 'flavour'),
			el('th', {}, 'policy'), el('th', {}, 'kernel'), el('th', {}, 'figures')));
		D.columns.forEach(function (c) {
			sum.appendChild(el('tr', { 'data-flavour': c.name },
				el('td', {}, el('code', {}, c.name)), el('td', {}, c.policy || '?'),
				el('td', {}, c.kernel || '?'), el('td', {}, c.summary || '')));
		});
		D.not_run.forEach(function (n) {
			sum.appendChild(el('tr', { 'data-flavour': n.name },
				el('td', {}, el('code', {}, n.name)),
				el('td', { colspan: 3 }, 'not run: ' + (n.why || 'no reason recorded'))));
		});
		document.body.appendChild(el('div', { class: 'scroll' }, sum));

		function sel(id, label, values) {
			var s = el('select', { id: id });

			s.appendChild(el('option', { value: '' }, 'all'));
			values.forEach(function (v) {
				s.appendChild(el('option', { value: String(v[0]) }, v[1]));
			});
			s.addEventListener('change', draw);
			T[id] = s;
			return el('label', {}, label, s);
		}
		var box = el('div', { id: 'filters' }), k, texts = [];

		for (k = 0; k < nk; k++)
			box.appendChild(sel('f-key' + k, D.keys[k],
				unique(D.rows.map(function (r) { return r.key[k]; })).map(function (v) {
					return [v, v];
				})));
		box.appendChild(sel('f-col', D.column_title || 'flavour',
			D.columns.map(function (c, i) { return [i, c.name]; })));
		var judged = false;
		D.rows.forEach(function (r) {
			r.cells.forEach(function (c) {
				if (c) {
					texts.push(c.text);
					judged = judged || c.ok !== null;
				}
			});
		});
		/* a diff judges nothing: no verdict to filter by */
		if (judged)
			box.appendChild(sel('f-verdict', 'verdict', [['no', 'not as expected'],
				['yes', 'as expected'], ['none', 'not judged'],
				['missing', 'not in the results']]));
		box.appendChild(sel('f-text', 'text', unique(texts).sort().map(function (t) {
			return [t, t];
		})));
		document.body.appendChild(box);

		var layout = el('div', { id: 'layout' });
		body = el('div', { id: 'grid' });
		detail = el('aside', { id: 'detail' },
			el('p', { class: 'muted' }, 'Click or tab to a cell (Enter) to see its details.'));
		layout.appendChild(body);
		layout.appendChild(detail);
		document.body.appendChild(layout);
		counts = el('section', { id: 'counts-box' });
		document.body.appendChild(counts);
		document.body.appendChild(el('p', { class: 'muted' }, D.legend ||
			'A cell is what the markdown page shows; "!" before it, outlined: not as ' +
			'expected (the expectation follows in brackets); in italics: not judged ' +
			'(nothing to hold it against); "-": not in the results.'));

		function verdictOf(c) {
			if (!c)
				return 'missing';
			return c.ok === null ? 'none' : c.ok ? 'yes' : 'no';
		}
		function draw() {
			var cols = [], want = T['f-verdict'] ? T['f-verdict'].value : '';
			var text = T['f-text'].value, shown = 0, n = {};
			var t = el('table', { id: 'grid-table', class: 'tv' }), tr = el('tr');

			for (k = 0; k < nc; k++)
				if (T['f-col'].value === '' || +T['f-col'].value === k)
					cols.push(k);
			D.keys.forEach(function (key) { tr.appendChild(el('th', {}, key)); });
			cols.forEach(function (i) { tr.appendChild(el('th', {}, D.columns[i].name)); });
			t.appendChild(tr);
			D.rows.forEach(function (r, ri) {
				var i, keep = true, any = false;

				for (i = 0; i < nk; i++)
					if (T['f-key' + i].value !== '' && r.key[i] !== T['f-key' + i].value)
						keep = false;
				cols.forEach(function (i) {
					var c = r.cells[i] || null;

					if ((!want || verdictOf(c) === want) && (!text || (c && c.text === text)))
						any = true;
				});
				if (!keep || !any)
					return;
				tr = el('tr', { 'data-row': r.key.join(' ') });
				r.key.forEach(function (v) { tr.appendChild(el('th', { class: 'row' }, v)); });
				cols.forEach(function (i) {
					var c = r.cells[i] || null, v = verdictOf(c);

					n[v] = (n[v] || 0) + 1;
					tr.appendChild(el('td', { class: 'c c-' + v + (v === 'no' ? ' mismatch' : ''),
						'data-row-index': String(ri), 'data-col': String(i), 'data-verdict': v,
						tabindex: '0', role: 'button' },
						c ? (v === 'no' ? '! ' : '') + c.text : '-'));
				});
				t.appendChild(tr);
				shown++;
			});
			body.textContent = '';
			body.appendChild(el('p', { id: 'shown' }, shown + ' rows shown, ' +
				cols.length + ' of ' + nc + ' columns'));
			body.appendChild(el('div', { class: 'scroll' }, t));
			var ct = el('table', { id: 'counts' }), h = el('tr'), v = el('tr');
			[['yes', 'as expected'], ['no', 'not as expected'], ['none', 'not judged'],
			 ['missing', 'not in the results']].forEach(function (p) {
				h.appendChild(el('th', {}, p[1]));
				v.appendChild(el('td', { 'data-verdict': p[0] }, n[p[0]] || 0));
			});
			ct.appendChild(h);
			ct.appendChild(v);
			counts.textContent = '';
			counts.appendChild(el('h2', {}, 'Cells shown, per verdict'));
			counts.appendChild(el('div', { class: 'scroll' }, ct));
		}
		function show(td) {
			var r = D.rows[+td.getAttribute('data-row-index')], i = +td.getAttribute('data-col');
			var c = r.cells[i] || null, col = D.columns[i], dl = el('dl'), old;

			old = body.querySelector('.c.sel');
			if (old)
				old.classList.remove('sel');
			td.classList.add('sel');
			detail.textContent = '';
			detail.appendChild(el('h2', { id: 'detail-title' }, col.name + ': ' + r.key.join(', ')));
			if (!c) {
				detail.appendChild(el('p', { id: 'detail-text' }, 'Not in the results.'));
				return;
			}
			dl.appendChild(el('dt', {}, 'shown'));
			dl.appendChild(el('dd', { id: 'detail-text' }, c.text));
			c.fields.forEach(function (f) {
				dl.appendChild(el('dt', {}, f[0]));
				dl.appendChild(el('dd', { id: 'detail-' + f[0].replace(/[^a-z0-9]+/gi, '-') }, f[1]));
			});
			detail.appendChild(dl);
			reportList(detail, c.reports || []);
			detail.appendChild(el('h2', {}, 'Its slice of the console'));
			if (c.console)
				consoleSlice(detail, c.console, 0, 0);
			else if (c.console_lines)
				consoleSlice(detail, D.consoles[c.console_lines[0]].slice(
					c.console_lines[1] - 1, c.console_lines[2]),
					c.console_lines[1], c.console_lines[2]);
			else if (c.lines)
				consoleSlice(detail, col.console.slice(c.lines[0] - 1, c.lines[1]),
					c.lines[0], c.lines[1]);
			else
				consoleSlice(detail, null);
		}
		body.addEventListener('click', function (e) {
			if (e.target.classList.contains('c'))
				show(e.target);
		});
		body.addEventListener('keydown', function (e) {
			if (e.key === 'Enter' && e.target.classList.contains('c'))
				show(e.target);
		});
		draw();
	}

	function unique(a) {
		return a.filter(function (v, i) { return a.indexOf(v) === i; });
	}

	if (D.view === 'table') {
		tableView();
		return;
	}

	function symClass(c) {
		return 's-' + c.charCodeAt(0).toString(16);
	}

	/* one rule per symbol: its colours; '-' and '?' keep a visible letter */
	function symbolStyles() {
		var css = '';

		D.symbols.forEach(function (s) {
			if (!s.fill)
				return;
			if (s.c === '-' || s.c === '?')
				css += '.' + symClass(s.c) + '{background:transparent;color:var(--muted);' +
					'border:1px dashed var(--line)}\n';
			else
				css += '.' + symClass(s.c) + '{background:' + s.fill + ';color:' + s.ink + '}\n';
		});
		document.head.appendChild(el('style', {}, css));
	}

	var meaning = {};
	D.symbols.forEach(function (s) { meaning[s.c] = s.meaning; });

	function header() {
		document.body.appendChild(el('h1', {}, 'The GUP matrix, measured: explorer'));
		document.body.appendChild(source());
	}

	function summary() {
		var cols = ['flavour', 'policy', 'kernel', 'cells', 'run', 'not applicable',
			'mismatches', 'reports expected', 'unexpected'];
		var t = el('table', { id: 'summary' }), tr = el('tr');

		cols.forEach(function (c) { tr.appendChild(el('th', {}, c)); });
		t.appendChild(tr);
		D.flavours.forEach(function (f) {
			t.appendChild(el('tr', { 'data-flavour': f.name },
				el('td', {}, el('code', {}, f.name)), el('td', {}, f.policy),
				el('td', {}, f.kernel || '?'), el('td', {}, f.present),
				el('td', {}, f.run), el('td', {}, f.not_applicable),
				el('td', { class: 'mismatches' }, f.mismatches),
				el('td', {}, f.reports_expected), el('td', {}, f.reports_unexpected)));
		});
		D.not_run.forEach(function (n) {
			t.appendChild(el('tr', { 'data-flavour': n.name },
				el('td', {}, el('code', {}, n.name)),
				el('td', { colspan: cols.length - 1 }, 'not run: ' + (n.why || 'no reason recorded'))));
		});
		document.body.appendChild(el('div', { class: 'scroll' }, t));
	}

	/* the filters: a select each, "all" first */
	var F = {};
	function select(id, label, values, names) {
		var s = el('select', { id: id });

		s.appendChild(el('option', { value: '' }, 'all'));
		values.forEach(function (v, i) {
			s.appendChild(el('option', { value: String(v) }, names ? names[i] : String(v)));
		});
		F[id] = s;
		s.addEventListener('change', render);
		return el('label', {}, label, s);
	}

	function filters() {
		var box = el('div', { id: 'filters' }), fl = el('select', { id: 'f-flavour' });

		D.flavours.forEach(function (f, i) {
			fl.appendChild(el('option', { value: String(i) }, f.name));
		});
		F['f-flavour'] = fl;
		fl.addEventListener('change', render);
		box.appendChild(el('label', {}, 'flavour', fl));
		box.appendChild(select('f-backing', 'backing',
			unique(D.rows.map(function (r) { return r.backing; }))));
		box.appendChild(select('f-state', 'state',
			unique(D.rows.map(function (r) { return r.state; }))));
		box.appendChild(select('f-flags', 'flags', D.flags.map(function (f, i) { return i; }),
			D.flags));
		box.appendChild(select('f-method', 'method', D.methods.map(function (m, i) { return i; }),
			D.methods));
		box.appendChild(select('f-sym', 'symbol', D.symbols.map(function (s) { return s.c; }),
			D.symbols.map(function (s) { return s.c + ': ' + s.meaning.split(/[:,(]/)[0]; })));
		document.body.appendChild(box);
	}

	var nrF = D.flags.length, nrM = D.methods.length;
	function cellAt(row, f, k) {
		return D.layout[(row * nrF + f) * nrM + k];
	}

	var grid, counts, detail;
	function render() {
		var fl = D.flavours[+F['f-flavour'].value], want = {}, n = {}, t, tr, row, f, k;
		var fs = [], ks = [], shown = 0;

		['f-backing', 'f-state', 'f-flags', 'f-method', 'f-sym'].forEach(function (id) {
			want[id] = F[id].value;
		});
		for (f = 0; f < nrF; f++)
			if (want['f-flags'] === '' || +want['f-flags'] === f)
				fs.push(f);
		for (k = 0; k < nrM; k++)
			if (want['f-method'] === '' || +want['f-method'] === k)
				ks.push(k);
		t = el('table', { id: 'grid-table' });
		tr = el('tr', {}, el('th', {}, 'backing · state'));
		fs.forEach(function (f) { tr.appendChild(el('th', {}, D.flags[f])); });
		t.appendChild(tr);
		grid.textContent = '';
		if (!fl) {
			grid.appendChild(el('p', {}, 'No flavour ran.'));
			return;
		}
		for (row = 0; row < D.rows.length; row++) {
			var r = D.rows[row], cells = [], any = false;

			if ((want['f-backing'] && r.backing !== want['f-backing']) ||
			    (want['f-state'] && r.state !== want['f-state']))
				continue;
			fs.forEach(function (f) {
				var td = el('td');

				ks.forEach(function (k) {
					var idx = cellAt(row, f, k), c = fl.sym[idx], a;

					if (want['f-sym'] && c !== want['f-sym'])
						return;
					a = { class: 's ' + symClass(c) + (c === '!' ? ' mismatch' : '') +
						(k === D.nr_pin_methods && ks[0] < k ? ' gap' : ''),
					      'data-cell': String(idx + 1), 'data-sym': c,
					      tabindex: '0', role: 'button',
					      title: D.cell_names[idx] + ': ' + meaning[c].split(':')[0] };
					td.appendChild(el('span', a, c));
					n[c] = (n[c] || 0) + 1;
					shown++;
					any = true;
				});
				cells.push(td);
			});
			if (!any)
				continue;
			tr = el('tr', { 'data-row': r.backing + ' ' + r.state },
				el('th', { class: 'row' }, r.backing + ' · ' + r.state));
			cells.forEach(function (td) { tr.appendChild(td); });
			t.appendChild(tr);
		}
		grid.appendChild(el('p', { id: 'shown' }, fl.name + ': ' + shown + ' cells shown, ' +
			(t.rows.length - 1) + ' rows'));
		grid.appendChild(el('div', { class: 'scroll' }, t));
		countsTable(n);
	}

	function countsTable(n) {
		var t = el('table', { id: 'counts' }), h = el('tr'), v = el('tr');

		D.symbols.forEach(function (s) {
			h.appendChild(el('th', {}, el('span', { class: 's ' + symClass(s.c) }, s.c)));
			v.appendChild(el('td', { 'data-sym': s.c }, n[s.c] || 0));
		});
		t.appendChild(h);
		t.appendChild(v);
		counts.textContent = '';
		counts.appendChild(el('h2', {}, 'Cells shown, per symbol'));
		counts.appendChild(el('div', { class: 'scroll' }, t));
	}

	function show(span) {
		var fl = D.flavours[+F['f-flavour'].value], idx = +span.getAttribute('data-cell') - 1;
		var c = fl.cells[idx], dl = el('dl'), str = function (i) {
			return i < 0 ? null : fl.strings[i];
		};
		var old = grid.querySelector('.s.sel'), reports;

		if (old)
			old.classList.remove('sel');
		span.classList.add('sel');
		detail.textContent = '';
		detail.appendChild(el('h2', { id: 'detail-title' }, fl.name + ', cell ' + (idx + 1)));
		detail.appendChild(el('p', { id: 'detail-name' }, el('code', {}, D.cell_names[idx])));
		function row(k, v, id) {
			dl.appendChild(el('dt', {}, k));
			dl.appendChild(el('dd', id ? { id: id } : {}, v));
		}
		row('symbol', fl.sym[idx] + ': ' + meaning[fl.sym[idx]], 'detail-sym');
		if (c) {
			row('expected', str(c[0]), 'detail-expected');
			row('reason', str(c[1]) || '(none)', 'detail-reason');
			row('measured', str(c[2]), 'detail-measured');
			if (c[3] >= 0)
				row('note', str(c[3]), 'detail-note');
		}
		detail.appendChild(dl);
		reports = (fl.reports || []).filter(function (r) {
			return r.step === 'matrix' && r.cell === idx + 1;
		});
		reportList(detail, reports);
		detail.appendChild(el('h2', {}, 'Its slice of the console'));
		if (c && c[4] > 0)
			consoleSlice(detail, fl.console.slice(c[4] - 1, c[5]), c[4], c[5]);
		else
			consoleSlice(detail, null);
	}

	function legend() {
		var t = el('table', { id: 'legend' });

		D.symbols.forEach(function (s) {
			t.appendChild(el('tr', {}, el('td', {}, el('span', { class: 's ' + symClass(s.c) }, s.c)),
				el('td', {}, s.meaning)));
		});
		document.body.appendChild(el('h2', {}, 'Legend'));
		document.body.appendChild(el('p', {}, 'Rows: what backs the page and what user ' +
			'space did to it before the pin; columns: the flags (W write, L longterm, F ' +
			'force, A allow-broken); in each, one symbol per GUP call: ' +
			D.methods.join(', ') + '.'));
		document.body.appendChild(t);
	}

	symbolStyles();
	header();
	summary();
	filters();
	var layout = el('div', { id: 'layout' });
	grid = el('div', { id: 'grid' });
	detail = el('aside', { id: 'detail' },
		el('p', { class: 'muted' }, 'Click or tab to a cell (Enter) to see its details.'));
	layout.appendChild(grid);
	layout.appendChild(detail);
	document.body.appendChild(layout);
	counts = el('section', { id: 'counts-box' });
	document.body.appendChild(counts);
	legend();
	grid.addEventListener('click', function (e) {
		if (e.target.classList.contains('s'))
			show(e.target);
	});
	grid.addEventListener('keydown', function (e) {
		if (e.key === 'Enter' && e.target.classList.contains('s'))
			show(e.target);
	});
	render();
}());

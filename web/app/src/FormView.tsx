/**
 * A task's form on a phone (docs/forms.md field types): every type, photos from the camera
 * (`capture`), a signature drawn with a finger, the size limits checked before anything is queued,
 * and a 242's errors from the server shown next to their fields.
 */
import { useEffect, useRef, useState } from 'react';
import { choiceLabel, type Field, type Task } from './tasks.ts';
import type { FormJob, PendingFile } from './outbox.ts';

/** The files code's largest file (docs/files.md) where a field sets no limit. */
const MAX_FILE = 16 * 1024 * 1024;

type Draft = Record<string, unknown>;

export function FormView(props: { task: Task; serverErrors?: Record<string, string>; onSubmit: (job: Pick<FormJob, 'values' | 'files'>) => void }) {
  const form = props.task.form!;
  const [draft, setDraft] = useState<Draft>({});
  const [files, setFiles] = useState<Record<string, PendingFile[]>>({});
  const [errors, setErrors] = useState<Record<string, string>>(props.serverErrors ?? {});
  const set = (id: string, v: unknown) => {
    setDraft((d) => ({ ...d, [id]: v }));
    setErrors((e) => ({ ...e, [id]: '' }));
  };

  function addFiles(f: Field, list: FileList | null) {
    if (!list) return;
    const limit = f.max_file_size ?? MAX_FILE;
    const max = f.type === 'photo' ? (f.max_files ?? 6) : 6;
    const picked = [...(files[f.id] ?? [])];
    for (const file of list) {
      if (file.size > limit) return setErrors((e) => ({ ...e, [f.id]: `${file.name} is larger than ${(limit / 1048576).toFixed(1)} MB` }));
      if (picked.length >= max) return setErrors((e) => ({ ...e, [f.id]: `At most ${max} files` }));
      picked.push({ blob: file, name: file.name || 'photo.jpg' });
    }
    setErrors((e) => ({ ...e, [f.id]: '' }));
    setFiles((x) => ({ ...x, [f.id]: picked }));
  }

  function submit() {
    const values: Record<string, unknown> = {};
    const out: FormJob['files'] = {};
    const missing: Record<string, string> = {};
    for (const f of form.fields) {
      const v = draft[f.id];
      switch (f.type) {
        case 'separator':
          break;
        case 'text':
          values[f.id] = { type: 'text', value: String(v ?? '') };
          if (f.required && !String(v ?? '').trim()) missing[f.id] = 'Required';
          break;
        case 'checkbox_group':
          values[f.id] = { type: 'checkbox_group', values: (f.group ?? []).map((_, i) => Boolean((v as boolean[] | undefined)?.[i])) };
          break;
        case 'dropdown':
        case 'radio_group':
        case 'rating':
          values[f.id] = f.type === 'rating' ? { type: 'rating', value: v ?? null } : { type: f.type, value_index: v ?? null };
          if (f.required && v === undefined) missing[f.id] = 'Required';
          break;
        case 'date':
          if (v) values[f.id] = { type: 'date', value: v };
          else if (f.required) missing[f.id] = 'Required';
          break;
        case 'photo':
        case 'file':
        case 'signature':
          out[f.id] = { type: f.type, list: files[f.id] ?? [] };
          if (f.required && !(files[f.id] ?? []).length) missing[f.id] = 'Required';
          break;
      }
    }
    setErrors(missing);
    if (Object.keys(missing).length) return;
    props.onSubmit({ values, files: out });
  }

  return (
    <form className="form" onSubmit={(e) => (e.preventDefault(), submit())}>
      <h2>{form.label}</h2>
      {form.fields.map((f) => (
        <div className="field" key={f.id} data-field={f.id}>
          {f.type === 'separator' ? (
            <h3>{f.label}</h3>
          ) : (
            <label htmlFor={`f-${f.id}`}>
              {f.label}
              {f.required ? ' *' : ''}
            </label>
          )}
          {f.description ? <p className="hint">{f.description}</p> : null}
          <Input field={f} value={draft[f.id]} set={(v) => set(f.id, v)} files={files[f.id] ?? []} addFiles={(l) => addFiles(f, l)} setSignature={(b) => (setFiles((x) => ({ ...x, [f.id]: b ? [{ blob: b, name: 'signature.png' }] : [] })), setErrors((e) => ({ ...e, [f.id]: '' })))} />
          {errors[f.id] ? <p className="error" role="alert">{errors[f.id]}</p> : null}
        </div>
      ))}
      <button type="submit" className="primary">
        Submit form
      </button>
    </form>
  );
}

function Input(p: { field: Field; value: unknown; set: (v: unknown) => void; files: PendingFile[]; addFiles: (l: FileList | null) => void; setSignature: (b: Blob | null) => void }) {
  const f = p.field;
  const id = `f-${f.id}`;
  switch (f.type) {
    case 'text':
      return <textarea id={id} rows={2} value={String(p.value ?? '')} onChange={(e) => p.set(e.target.value)} />;
    case 'checkbox_group':
      return (
        <div>
          {(f.group ?? []).map((g, i) => (
            <label className="check" key={i}>
              <input type="checkbox" checked={Boolean((p.value as boolean[] | undefined)?.[i])} onChange={(e) => p.set(Object.assign([...((p.value as boolean[]) ?? [])], { [i]: e.target.checked }))} /> {choiceLabel(g)}
            </label>
          ))}
        </div>
      );
    case 'dropdown':
      return (
        <select id={id} value={p.value === undefined ? '' : String(p.value)} onChange={(e) => p.set(e.target.value === '' ? undefined : Number(e.target.value))}>
          <option value="">—</option>
          {(f.options ?? []).map((o, i) => (
            <option key={i} value={i}>
              {choiceLabel(o)}
            </option>
          ))}
        </select>
      );
    case 'radio_group':
      return (
        <div>
          {(f.options ?? []).map((o, i) => (
            <label className="check" key={i}>
              <input type="radio" name={id} checked={p.value === i} onChange={() => p.set(i)} /> {choiceLabel(o)}
            </label>
          ))}
        </div>
      );
    case 'date':
      return <input id={id} type="date" value={String(p.value ?? '')} onChange={(e) => p.set(e.target.value)} />;
    case 'rating':
      return (
        <div className="stars">
          {Array.from({ length: f.max_stars ?? 5 }, (_, i) => (
            <button type="button" key={i} aria-label={`${i + 1} stars`} className={(p.value as number) > i ? 'on' : ''} onClick={() => p.set(i + 1)}>
              ★
            </button>
          ))}
        </div>
      );
    case 'photo':
    case 'file':
      return (
        <div>
          <input id={id} type="file" multiple accept={f.type === 'photo' ? 'image/*' : (f.allowed_extensions ?? []).map((x) => `.${x}`).join(',') || undefined} capture={f.type === 'photo' ? 'environment' : undefined} onChange={(e) => p.addFiles(e.target.files)} />
          <div className="thumbs">
            {p.files.map((x, i) => (f.type === 'photo' ? <Thumb key={i} blob={x.blob} /> : <span key={i}>{x.name}</span>))}
          </div>
        </div>
      );
    case 'signature':
      return <SignaturePad onChange={p.setSignature} />;
    default:
      return null;
  }
}

function Thumb({ blob }: { blob: Blob }) {
  const [url, setUrl] = useState('');
  useEffect(() => {
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [blob]);
  return <img className="thumb" src={url} alt="photo" />;
}

/** A signature drawn with a finger or a mouse; saved as a PNG when the stroke ends. */
function SignaturePad({ onChange }: { onChange: (b: Blob | null) => void }) {
  const ref = useRef<HTMLCanvasElement>(null);
  const drawing = useRef(false);
  const [empty, setEmpty] = useState(true);
  useEffect(() => {
    const c = ref.current!;
    c.width = c.clientWidth * devicePixelRatio;
    c.height = c.clientHeight * devicePixelRatio;
    const g = c.getContext('2d')!;
    g.scale(devicePixelRatio, devicePixelRatio);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, c.width, c.height);
    g.lineWidth = 2.5;
    g.lineCap = 'round';
    g.strokeStyle = '#123';
  }, []);
  const at = (e: React.PointerEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top] as const;
  };
  return (
    <div>
      <canvas
        ref={ref}
        className="signature"
        aria-label="Signature"
        onPointerDown={(e) => {
          drawing.current = true;
          ref.current!.setPointerCapture(e.pointerId);
          const g = ref.current!.getContext('2d')!;
          g.beginPath();
          g.moveTo(...at(e));
        }}
        onPointerMove={(e) => {
          if (!drawing.current) return;
          const g = ref.current!.getContext('2d')!;
          g.lineTo(...at(e));
          g.stroke();
        }}
        onPointerUp={() => {
          drawing.current = false;
          setEmpty(false);
          ref.current!.toBlob((b) => onChange(b), 'image/png');
        }}
      />
      {!empty ? (
        <button
          type="button"
          onClick={() => {
            const c = ref.current!;
            const g = c.getContext('2d')!;
            g.fillRect(0, 0, c.width, c.height);
            setEmpty(true);
            onChange(null);
          }}
        >
          Clear signature
        </button>
      ) : null}
    </div>
  );
}

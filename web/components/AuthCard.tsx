/** The frame of the signed-out pages (sign in, first-run setup, accepting an invitation). */
import type { ComponentChildren } from 'preact';
import './forms.css';

export function AuthCard({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="auth-page">
      <section class="auth-card" aria-labelledby="auth-title">
        <p class="auth-brand">Lumen</p>
        <h1 id="auth-title">{title}</h1>
        {children}
      </section>
    </main>
  );
}

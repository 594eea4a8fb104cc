import { render } from 'preact';
import { App } from './app';
import './styles.css';
import './responsive.css';

render(<App />, document.getElementById('app')!);
